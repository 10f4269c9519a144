import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { demoNotesKey, type RunningServer, startServer } from '../../test/helpers/processes.ts';
import { ROOT } from './audio.ts';

export interface BenchServer {
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

export interface VetflowServer extends BenchServer {
  /** The demo clinic's administrator key, from the first-run credentials of an empty database (DEMO_DATA on). */
  apiKey: string;
  output: string[];
}

/**
 * `node src/main.ts` as operators run it, against `env` (DATABASE_URL, DATA_DIR, ...), with the
 * compile cache `npm start` sets (package.json): warm from the second start of a checkout on.
 */
export async function startVetflow(env: Record<string, string>): Promise<VetflowServer> {
  const server: RunningServer = await startServer(
    { NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules/.cache/node-compile-cache'), ...env },
    60_000,
  );
  const stop = async () => {
    if (server.child.exitCode === null) await server.stop('SIGTERM');
  };
  try {
    // The first-run credentials file is written before the server says it started.
    const apiKey = demoNotesKey(server);
    return { pid: server.child.pid!, baseUrl: server.baseUrl, apiKey, output: server.output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The bare Fastify + @fastify/multipart route (bench/bare-upload-server.ts) writing into `dir`. */
export function startBareUploadServer(dir: string, maxBytes: number): Promise<BenchServer> {
  return startBareServer('bench/bare-upload-server.ts', [dir, String(maxBytes)]);
}

/** The bare Fastify + pg primary-key read (bench/bare-read-server.ts) on `databaseUrl`. */
export function startBareReadServer(databaseUrl: string, poolMax: number): Promise<BenchServer> {
  return startBareServer('bench/bare-read-server.ts', [databaseUrl, String(poolMax)]);
}

/** A baseline script that prints `listening <url>` once ready and exits on SIGTERM. */
async function startBareServer(script: string, args: string[]): Promise<BenchServer> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const baseUrl = await waitFor(
      () => /listening (http:\S+)/.exec(stdout)?.[1],
      15_000,
      () => child.exitCode !== null,
    );
    return { pid: child.pid!, baseUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, failed = () => false): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (failed() || Date.now() > deadline) throw new Error('timed out waiting for a server to be ready');
    await sleep(20);
  }
}
