import { flowRetentionTasks } from './flow/flow.retention.ts';
import { notesRetentionTasks } from './notes/notes.retention.ts';
import type { Config } from './platform/config.ts';
import type { Database } from './platform/db/client.ts';
import { idempotencyRetentionTask } from './platform/db/idempotency-retention.ts';
import type { RetentionTask } from './platform/retention.ts';
import { storageFor } from './providers/adapters.ts';
import type { AudioStorage } from './providers/storage/port.ts';

/**
 * Every retention task, for the daily job (app.ts) and `vetflow retention run` (cli/), which both
 * hand this list to `runRetention`: a composition root, since the tasks come from both trees and
 * the platform. A new task is one line, here or in its tree's `*.retention.ts`.
 */
export function retentionTasks(config: Config, database: Database, storage: AudioStorage = storageFor(config)): RetentionTask[] {
  const db = database.db;
  return [
    idempotencyRetentionTask(db, config.IDEMPOTENCY_RETENTION_HOURS),
    ...flowRetentionTasks(config, db),
    ...notesRetentionTasks(config, db, storage),
  ];
}
