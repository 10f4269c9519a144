import { date, integer, pgTable, primaryKey, text, uuid } from '../drizzle.ts';
import { notesApiKeys } from './notes-api-keys.ts';

/** Requests per key, day (UTC), endpoint and status class; aggregated in memory and flushed. */
export const notesApiKeyUsage = pgTable(
  'notes_api_key_usage',
  {
    keyId: uuid('key_id')
      .notNull()
      .references(() => notesApiKeys.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    /** Route pattern, e.g. `GET /notes/:id`: bounded cardinality, no ids. */
    endpoint: text('endpoint').notNull(),
    statusClass: text('status_class').notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.keyId, table.day, table.endpoint, table.statusClass] })],
);
