import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * CPU-profiles this process (the server in the in-process benchmarks) from now until the returned
 * function is called, which writes `<BENCH_PROFILE_DIR>/<name>.cpuprofile` (open it in Chrome's
 * DevTools, or aggregate it). Without BENCH_PROFILE_DIR nothing is profiled.
 */
export async function startProfile(): Promise<((name: string) => Promise<void>) | undefined> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (name) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
