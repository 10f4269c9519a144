import { bigint, integer, pgTable, primaryKey, text } from '../drizzle.ts';

/** Fixed-window request counters shared by every app process (when Redis is not configured). */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').notNull(),
    /** Window start in Unix milliseconds, aligned to the window length. */
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.windowStart] })],
);
