import { bigint, index, pgTable, sql, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { crmUsers } from './crm-users.ts';
import { workspaces } from './workspaces.ts';

// A CRM contact (a pet owner). Soft-deleted rows keep their data so an upsert can restore them.
// Phone (E.164, Brazilian mobiles always with the ninth digit) and external_id are unique among the
// workspace's non-deleted contacts: enforced here, by partial unique indexes, so concurrent upserts
// cannot both create (the loser's INSERT fails and is retried as an update).
export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    externalId: text('external_id'),
    document: text('document'),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    email: text('email'),
    address: text('address'),
    source: text('source'),
    profilePicUrl: text('profile_pic_url'),
    // The legacy numeric partner id of the old CRM: kept for the CRM side, never sent or accepted
    // through the external API.
    legacyId: bigint('legacy_id', { mode: 'number' }),
    // "Edited in flow": a CRM user changed the name/phone; under the `flow` sync policy the ERP's
    // value no longer overwrites it.
    nameEditedAt: timestamp('name_edited_at', { withTimezone: true }),
    nameEditedBy: uuid('name_edited_by').references(() => crmUsers.id, { onDelete: 'set null' }),
    phoneEditedAt: timestamp('phone_edited_at', { withTimezone: true }),
    phoneEditedBy: uuid('phone_edited_by').references(() => crmUsers.id, { onDelete: 'set null' }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    // Set once by the erasure (POST …/contacts/{id}/erase, docs/privacy.md): the row stays, deleted and
    // anonymised (every personal value null or the marker `[erased]`), so ids that point at it
    // (leads, chats, audit entries, the change feed) keep pointing at something and a second erasure
    // answers the first one's time.
    erasedAt: timestamp('erased_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    // The change feed's position of this contact's latest version (contact_changes.position), kept
    // by the trigger in src/flow/contacts/contact-sync.sql (a new contact: its transaction's id); never
    // set by the application.
    changePosition: bigint('change_position', { mode: 'number' }).notNull().default(sql`(pg_current_xact_id()::text::bigint)`),
  },
  (table) => [
    uniqueIndex('contacts_workspace_phone_active_key').on(table.workspaceId, table.phone).where(sql`deleted_at IS NULL`),
    uniqueIndex('contacts_workspace_external_id_active_key').on(table.workspaceId, table.externalId).where(sql`deleted_at IS NULL`),
    // Matching also looks at soft-deleted rows, so these lookups are plain (non-partial) indexes.
    index('contacts_workspace_external_id_idx').on(table.workspaceId, table.externalId),
    index('contacts_workspace_document_idx').on(table.workspaceId, table.document),
    index('contacts_workspace_phone_idx').on(table.workspaceId, table.phone),
    index('contacts_workspace_updated_idx').on(table.workspaceId, table.updatedAt),
  ],
);
