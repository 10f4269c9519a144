import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { VERSION } from '../version.ts';
import { pollQueueStats } from './jobs.ts';
import { reportPool, startProcessMetrics } from './process.ts';
import { type MetricsServer, startMetricsServer } from './server.ts';

export type { MetricsServer };

type MetricsConfig = Pick<Config, 'HOST' | 'METRICS_PORT' | 'METRICS_QUEUE_INTERVAL_SECONDS' | 'BUILD_COMMIT' | 'ROLE'>;

/**
 * Starts what only a scraped process needs: Node's default metrics, build info, the pool gauges,
 * the job queue poller and the `/metrics` listener on HOST:METRICS_PORT. `close()` stops them all.
 */
export async function startMetrics(
  config: MetricsConfig,
  parts: { database: Database; boss: Parameters<typeof pollQueueStats>[0]; queues: readonly string[]; logger: Logger },
): Promise<MetricsServer> {
  await startProcessMetrics({ version: VERSION, commit: config.BUILD_COMMIT, role: config.ROLE });
  const stopPool = reportPool(() => parts.database.poolStats?.());
  const stopPoll = pollQueueStats(parts.boss, parts.queues, config.METRICS_QUEUE_INTERVAL_SECONDS, parts.logger);
  try {
    const server = await startMetricsServer(config.HOST, config.METRICS_PORT ?? 0);
    parts.logger.info({ port: server.port }, 'metrics listening at /metrics');
    return {
      port: server.port,
      async close() {
        stopPoll();
        stopPool();
        await server.close();
      },
    };
  } catch (error) {
    stopPoll();
    stopPool();
    throw error;
  }
}
