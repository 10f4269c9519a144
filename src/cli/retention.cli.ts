import type { CliCommand } from '../platform/cli.ts';
import { runRetention } from '../platform/retention.ts';
import { retentionTasks } from '../retention.ts';

/**
 * `vetflow retention run`: every retention task now, as the daily job runs them, with this
 * process's CONTACT_CHANGES_RETENTION_DAYS, IDEMPOTENCY_RETENTION_HOURS and the other retention
 * settings. Prints what each removed: `{"contact_changes_deleted": 120, "idempotency_keys_deleted": 9, ...}`.
 */
export const retentionRun: CliCommand = {
  name: 'retention run',
  run: ({ config, database, logger }) => runRetention(retentionTasks(config, database), logger),
};
