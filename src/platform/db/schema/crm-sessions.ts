import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { crmUsers } from './crm-users.ts';

// A CRM login. The cookie carries a random id; only its SHA-256 is stored, so a leaked table
// cannot be replayed as cookies.
export const crmSessions = pgTable(
  'crm_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: uuid('user_id')
      .notNull()
      .references(() => crmUsers.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The last request that used the session (written at most once a minute): the idle timeout counts from it. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('crm_sessions_user_idx').on(table.userId), index('crm_sessions_expires_idx').on(table.expiresAt)],
);
