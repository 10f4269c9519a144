import { bigserial, index, pgTable, text, timestamp } from '../drizzle.ts';

// One row per failed authentication (bad bearer token or bad login), kept for the counting window
// only. In Postgres so every app process counts the same failures.
export const authFailures = pgTable(
  'auth_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ip: text('ip').notNull(),
    failedAt: timestamp('failed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('auth_failures_ip_failed_at_idx').on(table.ip, table.failedAt),
    index('auth_failures_failed_at_idx').on(table.failedAt),
  ],
);
