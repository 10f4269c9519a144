import { date, index, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { contacts } from './contacts.ts';

// A contact's pet, kept for the CRM side only: pets never leave through the external API.
export const contactPets = pgTable(
  'contact_pets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    species: text('species').notNull(),
    breed: text('breed'),
    birthDate: date('birth_date', { mode: 'string' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('contact_pets_contact_idx').on(table.contactId)],
);
