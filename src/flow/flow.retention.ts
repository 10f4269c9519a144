import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/client.ts';
import type { RetentionTask } from '../platform/retention.ts';
import { auditRetentionTask } from './audit/audit-retention.ts';
import { contactChangesRetentionTask } from './contacts/contact-changes-retention.ts';

/** The CRM tree's retention tasks (docs/privacy.md, "How long"), run by src/retention.ts. */
export function flowRetentionTasks(config: Config, db: Db): RetentionTask[] {
  return [contactChangesRetentionTask(db, config.CONTACT_CHANGES_RETENTION_DAYS), auditRetentionTask(db, config.AUDIT_RETENTION_DAYS)];
}
