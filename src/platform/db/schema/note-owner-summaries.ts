import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';
import { notes } from './notes.ts';

/**
 * The plain-language summary of a note for the animal's tutor (notes/owner-summary/): each
 * `POST …/owner_summary` writes a new version; the newest is the one shown, edited, approved and
 * sent. Goes with its note (erasure deletes the note row).
 */
export const noteOwnerSummaries = pgTable(
  'note_owner_summaries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    text: text('text').notNull(),
    /** `standard` (built from the note) or `plain` (rewritten by the drafting server, grounded). */
    style: text('style', { enum: ['standard', 'plain'] }).notNull(),
    reviewFlags: jsonb('review_flags').$type<{ reason: string; token: string | null }[]>().notNull(),
    status: text('status', { enum: ['draft', 'approved'] })
      .notNull()
      .default('draft'),
    contentSha256: text('content_sha256'),
    approvedBy: jsonb('approved_by').$type<{ name: string; license: string } | null>(),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('note_owner_summaries_note_version_idx').on(table.noteId, table.version)],
);

/**
 * A summary sent through the clinic's CRM link: the chat message the CRM queued (same database, no
 * foreign key across the trees) and its outcome as the delivery watch last saw it.
 */
export const noteOwnerSummaryDeliveries = pgTable(
  'note_owner_summary_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    summaryId: uuid('summary_id')
      .notNull()
      .references(() => noteOwnerSummaries.id, { onDelete: 'cascade' }),
    noteId: uuid('note_id')
      .notNull()
      .references(() => notes.id, { onDelete: 'cascade' }),
    clinicId: uuid('clinic_id').notNull(),
    messageId: uuid('message_id').notNull(),
    contactId: uuid('contact_id').notNull(),
    chatId: uuid('chat_id').notNull(),
    status: text('status', { enum: ['queued', 'sent', 'failed'] })
      .notNull()
      .default('queued'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('note_owner_summary_deliveries_message_idx').on(table.messageId),
    index('note_owner_summary_deliveries_summary_idx').on(table.summaryId, table.createdAt),
  ],
);
