import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/client.ts';
import type { JobDefinition } from '../platform/jobs.ts';
import type { MessagingProvider } from '../providers/messaging/port.ts';
import { createRecordProvider } from '../providers/messaging/record.ts';
import { createWebhookProvider } from '../providers/messaging/webhook.ts';
import { auditRetentionJob } from './audit/audit-retention.job.ts';
import { surveyMessageJob } from './surveys/survey-message.job.ts';

export interface FlowModule {
  readonly jobs: readonly JobDefinition<any>[];
  readonly surveyMessage: ReturnType<typeof surveyMessageJob>;
  readonly auditRetention: ReturnType<typeof auditRetentionJob>;
}

export function createMessagingProvider(config: Config): MessagingProvider {
  return config.MESSAGING_PROVIDER === 'webhook'
    ? createWebhookProvider({ url: config.MESSAGING_WEBHOOK_URL!, secret: config.MESSAGING_WEBHOOK_SECRET! })
    : createRecordProvider();
}

/** What the CRM tree needs before the app is built: its job definitions and the messaging provider. */
export function createFlowModule(
  config: Config,
  database: Database,
  provider: MessagingProvider = createMessagingProvider(config),
): FlowModule {
  const surveyMessage = surveyMessageJob({ db: database.db, provider });
  const auditRetention = auditRetentionJob({ db: database.db, retentionDays: config.AUDIT_RETENTION_DAYS });
  return { jobs: [surveyMessage, auditRetention], surveyMessage, auditRetention };
}
