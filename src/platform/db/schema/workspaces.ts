import { boolean, pgTable, text, timestamp, uuid } from '../drizzle.ts';

export const BILLING_STATUSES = ['active', 'suspended'] as const;
export const CONTACT_SYNC_POLICIES = ['flow', 'erp'] as const;
/** What an upsert whose new external_id matched another contact by document or phone does (docs/flow-contacts.md). */
export const EXTERNAL_ID_REKEYING = ['replace', 'refuse'] as const;

// A CRM workspace: the tenant of the CRM integration API. Keys, users and contacts belong to one.
export const workspaces = pgTable('workspaces', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  billingStatus: text('billing_status', { enum: BILLING_STATUSES }).notNull().default('active'),
  contactSyncPolicy: text('contact_sync_policy', { enum: CONTACT_SYNC_POLICIES }).notNull().default('flow'),
  // `replace` (the contract's matching order, with an `external_id_replaced` warning) or `refuse` (409 EXTERNAL_ID_CONFLICT).
  externalIdRekeying: text('external_id_rekeying', { enum: EXTERNAL_ID_REKEYING }).notNull().default('replace'),
  // Survey configuration (the survey settings route, docs/flow-contacts.md); the stage is a pipeline stage of this workspace.
  surveyEnabled: boolean('survey_enabled').notNull().default(false),
  surveyStageId: uuid('survey_stage_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
