import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { contacts } from './contacts.ts';
import { crmApiKeys } from './crm-api-keys.ts';
import { workspaces } from './workspaces.ts';

export const CONTACT_AUDIT_ACTIONS = ['created', 'updated', 'restored', 'deleted'] as const;

/** `{field: {before, after}}` for each field the request changed. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

// One row per successful external PUT/DELETE of a contact, written in the same transaction as the
// change. The key prefix is copied so the trail stays readable after the key is gone.
export const contactExternalApiAuditLogs = pgTable(
  'contact_external_api_audit_logs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    apiKeyId: uuid('api_key_id').references(() => crmApiKeys.id, { onDelete: 'set null' }),
    apiKeyPrefix: text('api_key_prefix').notNull(),
    action: text('action', { enum: CONTACT_AUDIT_ACTIONS }).notNull(),
    changes: jsonb('changes').$type<AuditChanges>().notNull(),
    warnings: text('warnings').array().notNull(),
    requestId: text('request_id').notNull(),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('contact_audit_contact_idx').on(table.contactId, table.createdAt),
    // The retention job deletes by age.
    index('contact_audit_created_idx').on(table.createdAt),
  ],
);
