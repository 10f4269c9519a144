import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the operator CLI as an operator would (`npm run cli -- ...args`): `node src/cli/vetflow.mjs ...args`. */
export function runCli(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runNode(['src/cli/vetflow.mjs', ...args], cleanEnv(env));
}

/** `node ...args` from the repository's root with exactly `env`, its output collected. */
export function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningServer {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly output: string[];
  /** Sends `signal` and resolves with the exit code and how long the process took to exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/**
 * Starts `node src/start.mjs` (what `npm start` runs) on a free port and resolves once it has said it started (listening,
 * workers running, first-start output printed): a test that stops it earlier races start-up.
 */
export function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<RunningServer> {
  const child = spawn(process.execPath, ['src/start.mjs'], {
    cwd: ROOT,
    // Demo data on Postgres too (only there is it opt-in): the process tests read its first-run key.
    env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DEMO_DATA: 'true', ...env }),
  });
  const output: string[] = [];
  // 'close', not 'exit': by then every byte the child wrote has been read into `output`.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    let baseUrl: string | undefined;
    let started = false;
    const onData = (chunk: Buffer) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        output.push(line);
        baseUrl ??= /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
        started ||= line.includes('"msg":"vetflow started"');
        if (baseUrl && started) {
          clearTimeout(timer);
          resolve({
            child,
            baseUrl,
            output,
            async stop(signal = 'SIGTERM') {
              const started = Date.now();
              child.kill(signal);
              const code = await exited;
              return { code, ms: Date.now() - started };
            },
          });
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output.join('\n')}`));
    });
  });
}

/**
 * The first-run credentials a server started here wrote: its stdout is a pipe, not a terminal, so
 * they are in the 0600 file whose path it logged (`credentials_file`). Null when it logged none.
 */
export function firstRunCredentials(server: Pick<RunningServer, 'output'>): { file: string; text: string } | null {
  for (const line of server.output) {
    if (!line.startsWith('{')) continue;
    const file = (JSON.parse(line) as { credentials_file?: string }).credentials_file;
    if (file) return { file, text: readFileSync(file, 'utf8') };
  }
  return null;
}

/** The demo clinic's Notes administrator key from the first-run credentials (written before "vetflow started"). */
export function demoNotesKey(server: Pick<RunningServer, 'output'>): string {
  const text = firstRunCredentials(server)?.text ?? '';
  const key = /administrator key +(vnk_[0-9a-f]{32})/.exec(text)?.[1];
  if (!key) throw new Error(`no demo Notes key in the first-run credentials:\n${server.output.join('\n')}`);
  return key;
}

// Children get only what the test says, plus PATH: never the developer's DATABASE_URL by accident.
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
}
