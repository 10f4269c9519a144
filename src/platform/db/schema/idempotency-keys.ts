import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from '../drizzle.ts';

/**
 * The first response to an Idempotency-Key, replayed for 24 h to the same owner: a Notes clinic or
 * a CRM workspace (`owner_id` holds either; the scope names the operation, and so the API). No
 * foreign key since keys serve both trees; rows leave by age. Written only through `idempotency()`
 * (platform/db/idempotency.ts).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** The clinic (Notes) or workspace (CRM) the key belongs to. */
    ownerId: uuid('owner_id').notNull(),
    key: text('key').notNull(),
    /** Which operation the key was used for, e.g. `POST /notes`. */
    scope: text('scope').notNull(),
    /** Hex SHA-256 of what identifies the request (audio bytes and metadata for an upload). */
    fingerprint: text('fingerprint').notNull(),
    statusCode: integer('status_code').notNull(),
    response: jsonb('response').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.ownerId, table.scope, table.key] }), index('idempotency_keys_created_idx').on(table.createdAt)],
);
