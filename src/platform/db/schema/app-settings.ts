import { jsonb, pgTable, text, timestamp } from '../drizzle.ts';

// Process-wide facts that must survive restarts, e.g. "the demo tenant was already printed".
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
