import { boolean, pgTable, text, timestamp, uuid } from '../drizzle.ts';

export const BILLING_STATUSES = ['active', 'suspended'] as const;
export const CONTACT_SYNC_POLICIES = ['flow', 'erp'] as const;

// A CRM workspace: the tenant of the CRM integration API. Keys, users and contacts belong to one.
export const workspaces = pgTable('workspaces', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  billingStatus: text('billing_status', { enum: BILLING_STATUSES }).notNull().default('active'),
  contactSyncPolicy: text('contact_sync_policy', { enum: CONTACT_SYNC_POLICIES }).notNull().default('flow'),
  // Survey configuration (the survey settings route, docs/flow-contacts.md); the stage is a pipeline stage of this workspace.
  surveyEnabled: boolean('survey_enabled').notNull().default(false),
  surveyStageId: uuid('survey_stage_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
