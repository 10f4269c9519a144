import { customType } from '../drizzle.ts';

/** A Postgres `tsvector` (drizzle has no built-in type for it): written by SQL, read as text. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
