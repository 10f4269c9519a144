import { bigserial, index, pgTable, sql, text, timestamp } from '../drizzle.ts';

// One row per authentication attempt that has not succeeded (bad bearer token, bad Notes key, a
// login being checked or refused), kept for the counting window only. In Postgres so every app
// process counts the same attempts. `ip` is the address group (an IPv4 address or an IPv6 /64);
// `account` the SHA-256 of the normalised login email, for logins only.
export const authFailures = pgTable(
  'auth_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ip: text('ip').notNull(),
    account: text('account'),
    failedAt: timestamp('failed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('auth_failures_ip_failed_at_idx').on(table.ip, table.failedAt),
    index('auth_failures_failed_at_idx').on(table.failedAt),
    index('auth_failures_account_failed_at_idx').on(table.account, table.failedAt).where(sql`account is not null`),
  ],
);
