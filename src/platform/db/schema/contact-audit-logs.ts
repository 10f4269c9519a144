import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';

export const CONTACT_AUDIT_ACTIONS = ['created', 'updated', 'restored', 'deleted', 'erased'] as const;

/** `{field: {before, after}}` for each field the request changed. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

// One row per successful external PUT/DELETE/erasure of a contact, written in the same transaction as the
// change. The workspace, contact and key ids are kept as written, with no foreign keys: the trail
// must still name a key after it is gone, and each check costs every audited write a lookup and a
// lock of a hot row (the key's, the workspace's, the contact it just wrote). Without the key and
// workspace checks the upsert's insert took 0.19 ms instead of 0.26 (pg_stat_statements); without
// the contact check a pgbench of the upsert function ran 3-5 % more upserts per second. The
// application never hard-deletes contacts or workspaces (contacts are soft-deleted); rows leave by
// age (retention job), and an operator who deletes contacts by hand deletes their rows too.
export const contactExternalApiAuditLogs = pgTable(
  'contact_external_api_audit_logs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id').notNull(),
    contactId: uuid('contact_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    apiKeyPrefix: text('api_key_prefix').notNull(),
    action: text('action', { enum: CONTACT_AUDIT_ACTIONS }).notNull(),
    changes: jsonb('changes').$type<AuditChanges>().notNull(),
    warnings: text('warnings').array().notNull(),
    requestId: text('request_id').notNull(),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Write order: entries of one transaction share `created_at` (a batch that creates, then updates
     * a contact), so every listing orders by (created_at, seq), never by the random id.
     */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  },
  (table) => [
    index('contact_audit_contact_idx').on(table.contactId, table.createdAt, table.seq),
    // The retention job deletes by age.
    index('contact_audit_created_idx').on(table.createdAt),
  ],
);
