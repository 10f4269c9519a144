import { pgTable, text, timestamp } from '../drizzle.ts';

// An IP that exceeded the failed-authentication limit, refused with 429 until `blocked_until`.
export const authBlocks = pgTable('auth_blocks', {
  ip: text('ip').primaryKey(),
  blockedUntil: timestamp('blocked_until', { withTimezone: true }).notNull(),
});
