import { index, integer, pgTable, text, timestamp, uuid } from '../drizzle.ts';
import { workspaces } from './workspaces.ts';

// A column of the workspace's sales/care pipeline; leads sit in one stage at a time.
export const pipelineStages = pgTable(
  'pipeline_stages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    position: integer('position').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('pipeline_stages_workspace_idx').on(table.workspaceId, table.position)],
);
