import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { crmUsers } from './crm-users.ts';
import { workspaces } from './workspaces.ts';

// A bearer key of the CRM integration API, bound to one workspace. Only the SHA-256 of the token
// is stored; `prefix` (first 12 characters) lets people recognise a key in lists and audit logs.
export const crmApiKeys = pgTable(
  'crm_api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    scopes: text('scopes').array().notNull(),
    // Null when issued by the operator CLI.
    createdByUserId: uuid('created_by_user_id').references(() => crmUsers.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [index('crm_api_keys_workspace_idx').on(table.workspaceId)],
);
