import { index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { contacts } from './contacts.ts';
import { workspaces } from './workspaces.ts';

// A conversation channel with a contact (WhatsApp by default); survey messages go to the newest one.
export const chats = pgTable(
  'chats',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull().default('whatsapp'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('chats_contact_idx').on(table.contactId, table.createdAt)],
);
