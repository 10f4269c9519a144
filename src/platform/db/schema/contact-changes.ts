import { bigint, bigserial, boolean, index, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';

export const CONTACT_CHANGE_SOURCES = ['erp', 'crm_user'] as const;

// The change feed's outbox: one row per version of a contact, written by the trigger
// `vetflow_contact_change` (src/flow/contacts/contact-sync.sql) in the transaction that wrote the
// contact, so no write path can forget it. Read in (position, id) order only below the oldest
// in-flight transaction (docs/flow-sync.md): `position` is the writing transaction's id (xid8 as
// bigint), raised to the contact's previous position when a transaction that started earlier
// writes the contact after a later one did, so one contact's versions always come out in order.
export const contactChanges = pgTable(
  'contact_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    contactId: uuid('contact_id').notNull(),
    position: bigint('position', { mode: 'number' }).notNull(),
    source: text('source', { enum: CONTACT_CHANGE_SOURCES }).notNull(),
    /** API field names that differ from the previous version; `deleted` for a delete or restore. */
    changedFields: text('changed_fields').array().notNull(),
    deleted: boolean('deleted').notNull(),
    /** The read projection of this version (as GET …/contacts/{id} shows it); null once deleted. */
    contact: jsonb('contact'),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('contact_changes_feed_idx').on(table.workspaceId, table.position, table.id)],
);
