import { gauge, registry } from './registry.ts';

// Process and Node figures (prom-client's defaults: CPU, memory, event loop lag, GC, handles),
// build information and the database pool.

/** Pool figures of one `pg` pool; undefined on the embedded database, which has no pool. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

const pools = new Set<() => PoolStats | undefined>();

for (const [field, help] of [
  ['total', 'Connections the database pool holds.'],
  ['idle', 'Connections of the database pool not in use.'],
  ['waiting', 'Queries waiting for a connection of the pool.'],
] as const) {
  gauge(`vetflow_db_pool_${field === 'total' ? 'connections' : field}`, help, [], function collect() {
    let sum = 0;
    for (const stats of pools) sum += stats()?.[field] ?? 0;
    this.set(sum);
  });
}

/** Reports `stats` under the pool gauges until the returned function is called. */
export function reportPool(stats: () => PoolStats | undefined): () => void {
  pools.add(stats);
  return () => pools.delete(stats);
}

const buildInfo = gauge('vetflow_build_info', 'Always 1; the labels say what runs.', ['version', 'commit', 'node', 'role']);

let defaultsStarted = false;

/** Node's default metrics (once per process) and the build information. */
export async function startProcessMetrics(build: { version: string; commit: string; role: string }): Promise<void> {
  if (!defaultsStarted) {
    defaultsStarted = true;
    // Loaded here, not at start-up: prom-client's index brings @opentelemetry/api (registry.ts).
    const { collectDefaultMetrics } = await import('prom-client');
    // No prefix: stock dashboards and alert rules query `process_*` and `nodejs_*` under exactly
    // these names; the `vetflow_` prefix is kept for the families vetflow defines itself.
    collectDefaultMetrics({ register: registry });
  }
  buildInfo.reset();
  buildInfo.set({ ...build, node: process.version }, 1);
}
