import { integer, pgTable, text, timestamp, uuid } from '../drizzle.ts';

/** A clinic: the tenant of the Notes API. Every note and key belongs to exactly one. */
export const clinics = pgTable('clinics', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** Monthly processing quota in audio minutes; null = unlimited. */
  quotaMinutes: integer('quota_minutes'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
