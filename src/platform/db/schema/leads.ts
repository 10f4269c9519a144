import { index, pgTable, sql, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';
import { contacts } from './contacts.ts';
import { pipelineStages } from './pipeline-stages.ts';
import { workspaces } from './workspaces.ts';

export const LEAD_STATUSES = ['active', 'finished'] as const;

// A contact's way through the pipeline. At most one active lead per contact (partial unique index),
// so "the contact's active lead" a survey trigger looks for is always well defined.
export const leads = pgTable(
  'leads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    stageId: uuid('stage_id')
      .notNull()
      .references(() => pipelineStages.id, { onDelete: 'restrict' }),
    status: text('status', { enum: LEAD_STATUSES }).notNull().default('active'),
    // Set once, by the single UPDATE that wins a survey trigger: the guard against a second survey.
    surveySentAt: timestamp('survey_sent_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('leads_one_active_per_contact_key').on(table.contactId).where(sql`status = 'active'`),
    index('leads_workspace_idx').on(table.workspaceId),
  ],
);
