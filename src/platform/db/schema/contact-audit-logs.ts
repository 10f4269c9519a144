import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { contacts } from './contacts.ts';

export const CONTACT_AUDIT_ACTIONS = ['created', 'updated', 'restored', 'deleted'] as const;

/** `{field: {before, after}}` for each field the request changed. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

// One row per successful external PUT/DELETE of a contact, written in the same transaction as the
// change. The key's id and prefix are kept as written, with no foreign key: the trail must still
// name the key after it is gone, and a key check (like a workspace check) on every audited write
// locks the one hot key row and workspace row of every concurrent request: without the two, the
// upsert's insert statement took 0.19 ms instead of 0.26, its update 0.20 instead of 0.29
// (pg_stat_statements, bench/contacts-upsert.ts). The workspace is always the contact's (both
// come from the caller), and rows leave with their contact (cascade) or by age (retention job).
export const contactExternalApiAuditLogs = pgTable(
  'contact_external_api_audit_logs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id').notNull(),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    apiKeyId: uuid('api_key_id'),
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
