import { index, pgTable, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { workspaces } from './workspaces.ts';

export const CRM_USER_ROLES = ['administrator', 'agent'] as const;

// A person who logs in to the CRM side. Emails are stored lower-cased and are unique across all
// workspaces, because login takes only an email and a password.
export const crmUsers = pgTable(
  'crm_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    // scrypt, self-describing: `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>`.
    passwordHash: text('password_hash').notNull(),
    role: text('role', { enum: CRM_USER_ROLES }).notNull(),
    /** Set by an administrator: the user cannot log in and has no sessions while it is set. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** After this time the user cannot log in and has no sessions (the demo administrator: 30 days). */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('crm_users_email_key').on(table.email), index('crm_users_workspace_idx').on(table.workspaceId)],
);
