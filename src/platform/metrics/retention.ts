import { counter, histogram, SLOW_BUCKETS } from './registry.ts';

// Retention runs (platform/retention.ts): what each task removed and how long it took. `task` is a
// task's report key (`contact_changes_deleted`, ...): a small fixed set.

export const retentionRemoved = counter('vetflow_retention_removed_total', 'Rows or files removed by a retention task.', ['task']);
export const retentionDuration = histogram(
  'vetflow_retention_task_duration_seconds',
  'One retention task of one run.',
  [0.01, 0.1, 0.5, ...SLOW_BUCKETS],
  ['task', 'outcome'],
);
