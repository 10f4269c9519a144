import { bigint, bigserial, boolean, index, jsonb, pgTable, text, timestamp, uuid } from '../drizzle.ts';

export const CONTACT_CHANGE_SOURCES = ['erp', 'crm_user'] as const;
/** What a version is: the contact's first, a later one, its deletion, its restore, or its erasure. */
export const CONTACT_CHANGE_KINDS = ['created', 'updated', 'deleted', 'restored', 'erased'] as const;

// The change feed's outbox: one row per version of a contact, written by the trigger
// `vetflow_contact_change` (src/flow/contacts/contact-sync.sql) in the transaction that wrote the
// contact, so no write path can forget it. Read in (position, id) order only below the oldest
// in-flight transaction (docs/flow-sync.md): `position` is the writing transaction's id (xid8 as
// bigint), raised to the contact's previous position when a transaction that started earlier
// writes the contact after a later one did, so one contact's versions always come out in order.
// Kept CONTACT_CHANGES_RETENTION_DAYS (docs/privacy.md); an erasure anonymises its contact's rows.
export const contactChanges = pgTable(
  'contact_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    contactId: uuid('contact_id').notNull(),
    position: bigint('position', { mode: 'number' }).notNull(),
    source: text('source', { enum: CONTACT_CHANGE_SOURCES }).notNull(),
    change: text('change', { enum: CONTACT_CHANGE_KINDS }).notNull(),
    /** API field names that differ from the previous version; `deleted` for a delete or restore. */
    changedFields: text('changed_fields').array().notNull(),
    deleted: boolean('deleted').notNull(),
    /** The read projection of this version (as GET …/contacts/{id} shows it); null once deleted. */
    contact: jsonb('contact'),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('contact_changes_feed_idx').on(table.workspaceId, table.position, table.id)],
);

// How far the retention job has pruned a workspace's feed: the greatest (position, id) it deleted.
// A cursor below it may have missed a deleted change (410 CURSOR_EXPIRED, with this place as the
// cursor to resync from); one at or above it has seen everything that is gone. Written in the
// transaction of each deleted batch, so readers see the rows and the floor of one moment. No foreign
// key, like contact_changes: the feed of a workspace removed by hand must still be prunable.
export const contactChangeFloors = pgTable('contact_change_floors', {
  workspaceId: uuid('workspace_id').primaryKey(),
  position: bigint('position', { mode: 'number' }).notNull(),
  changeId: bigint('change_id', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
