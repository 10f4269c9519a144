import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/client.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { MessagingProvider } from '../providers/messaging/port.ts';
import { type SessionsService, sessionsService } from './auth/sessions.service.ts';
import { type ContactChangesService, contactChangesService } from './contacts/contact-changes.service.ts';
import { type ContactExportService, contactExportService } from './contacts/contact-export.service.ts';
import { type ExternalContactsService, externalContactsService } from './contacts/contacts.service.ts';
import { type ContactErasureService, contactErasureService } from './contacts/erasure.service.ts';
import { type ContactUpserter, contactUpserter } from './contacts/upsert.service.ts';
import { type AuditService, auditService } from './crm/audit-trail.service.ts';
import { type CrmContactsService, crmContactsService } from './crm/crm-contacts.service.ts';
import { type PipelineService, pipelineService } from './crm/pipeline.service.ts';
import { type SettingsService, settingsService } from './crm/settings.service.ts';
import { type CrmKeysService, crmKeysService } from './keys/keys.service.ts';
import { chatMessageJob } from './messages/chat-message.job.ts';
import { type CrmLinkService, crmLinkService } from './messages/crm-link.service.ts';
import { type MessagesService, messagesService } from './messages/messages.service.ts';
import { type SurveysService, surveysService } from './surveys/surveys.service.ts';
import { type WorkspaceUsersService, workspaceUsersService } from './users/workspace-users.service.ts';

/**
 * The CRM tree, built once by the composition root (app.ts): the jobs it registers on the queue
 * and its services — each a bound object whose operations take `(caller, input)`, handed to the
 * routes that call them.
 */
export interface FlowModule {
  readonly services: FlowServices;
}

export interface FlowServices {
  /** CRM-side (session) operations. */
  readonly sessions: SessionsService;
  readonly keys: CrmKeysService;
  readonly users: WorkspaceUsersService;
  readonly crmContacts: CrmContactsService;
  readonly audit: AuditService;
  readonly pipeline: PipelineService;
  readonly settings: SettingsService;
  /** ERP-facing (bearer key) operations. */
  readonly upserter: ContactUpserter;
  readonly contacts: ExternalContactsService;
  readonly changes: ContactChangesService;
  readonly erasure: ContactErasureService;
  readonly contactExport: ContactExportService;
  readonly surveys: SurveysService;
  readonly messages: MessagesService;
  /** What the Notes API does with a clinic's linked CRM key (owner summaries sent to tutors). */
  readonly crmLink: CrmLinkService;
}

/**
 * Builds the CRM tree on `jobs`, before the queue starts: its job definitions are registered there,
 * and its services bound once to the database, the queue and the settings they use.
 */
export function createFlowModule(config: Config, database: Database, jobs: JobQueue, provider: MessagingProvider): FlowModule {
  const db = database.db;
  const chatMessage = jobs.register(chatMessageJob({ db, provider, retryDelaySeconds: config.MESSAGING_RETRY_DELAY_SECONDS }));
  const upserter = contactUpserter({ db, batchItemsPerMinute: config.CRM_BATCH_ITEMS_PER_MINUTE });
  const messages = messagesService({ db, jobs, job: chatMessage });
  return {
    services: {
      sessions: sessionsService({ db, config }),
      keys: crmKeysService({ db }),
      users: workspaceUsersService({ db }),
      crmContacts: crmContactsService({ db }),
      audit: auditService({ db }),
      pipeline: pipelineService({ db }),
      settings: settingsService({ db }),
      upserter,
      contacts: externalContactsService({ db }),
      changes: contactChangesService({ db }),
      erasure: contactErasureService({ db }),
      contactExport: contactExportService({ db }),
      surveys: surveysService({ db, jobs, job: chatMessage }),
      messages,
      crmLink: crmLinkService({ db, upserter, messages }),
    },
  };
}
