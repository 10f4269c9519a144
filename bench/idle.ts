import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../test/helpers/processes.ts';
import { rssBytes } from './lib/proc.ts';
import { median } from './lib/report.ts';

// Idle RSS and start-up time of `node src/main.ts`: the medians of `runs` starts on a database
// that is already migrated (start one server on it first), each left idle for a few seconds.

export interface IdleFigures {
  rssMb: number;
  startMs: number;
}

export async function measureIdle(env: Record<string, string>, runs: number, idleMs = 3_000): Promise<IdleFigures> {
  const rss: number[] = [];
  const starts: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const server = await startServer(env);
    starts.push(performance.now() - started);
    await sleep(idleMs);
    rss.push(rssBytes(server.child.pid!) / 1e6);
    await server.stop();
  }
  return { rssMb: median(rss), startMs: median(starts) };
}
