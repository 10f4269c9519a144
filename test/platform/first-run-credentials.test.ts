import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_EMAIL } from '../../src/flow/demo-workspace.ts';
import { CREDENTIALS_FILE, handOverCredentials } from '../../src/platform/first-run-credentials.ts';
import { eventually } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { ROOT } from '../helpers/processes.ts';

// `npm start > server.log 2>&1`, as an operator or a process manager runs it: stdout is a file, not
// a terminal, so the first-run secrets must not be in it. They are in a 0600 file in DATA_DIR,
// whose path the log gives, and they work.

const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const database = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
afterAll(() => database?.drop());

const dataDir = path.join(dir, 'data');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  DATA_DIR: dataDir,
  PASSWORD_SCRYPT_LOG_N: '14',
  // Demo data is opt-in on Postgres (docs/privacy.md).
  ...(database?.url ? { DATABASE_URL: database.url, DEMO_DATA: 'true' } : {}),
};

/** `node src/start.mjs > log 2>&1` (what `npm start` runs); resolves once it said it started. */
async function startToFile(log: string) {
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, ['src/start.mjs'], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = () => readFileSync(log, 'utf8').split('\n');
  const baseUrl = await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`server exited:\n${readFileSync(log, 'utf8')}`);
    const text = readFileSync(log, 'utf8');
    if (!text.includes('"msg":"vetflow started"')) return undefined;
    return /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
  }, 60_000);
  return {
    baseUrl,
    lines,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the first start with stdout redirected to a file', () => {
  it('keeps every secret out of the log, in a 0600 file whose path is logged, and the secrets work', async () => {
    const log = path.join(dir, 'server.log');
    const first = await startToFile(log);
    const logged = first.lines().filter((line) => line.startsWith('{'));
    const file = logged.map((line) => JSON.parse(line).credentials_file as string | undefined).find(Boolean);
    expect(file).toBe(path.join(dataDir, CREDENTIALS_FILE));
    expect(statSync(file!).mode & 0o777).toBe(0o600);

    const credentials = readFileSync(file!, 'utf8');
    const key = /administrator key +(vnk_[0-9a-f]{32})/.exec(credentials)?.[1];
    const password = /password +(\S+)/.exec(credentials)?.[1];
    expect(key, credentials).toBeDefined();
    expect(password, credentials).toBeDefined();
    expect(credentials).toContain(DEMO_ADMIN_EMAIL);

    // Nothing secret anywhere in what stdout and stderr received, logged or not.
    const output = readFileSync(log, 'utf8');
    expect(output).not.toContain(key!);
    expect(output).not.toContain(password!);
    expect(output).not.toMatch(/vnk_[0-9a-f]{32}/);

    // The credentials work: the Notes key on its API, the CRM login on its own.
    const keys = await fetch(`${first.baseUrl}/notes/v1/api-keys`, { headers: { 'x-api-key': key! } });
    expect(keys.status).toBe(200);
    const login = await fetch(`${first.baseUrl}/flow/v1/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_ADMIN_EMAIL, password }),
    });
    expect(login.status).toBe(200);
    expect(await first.stop()).toBe(0);

    // A later start creates nothing and writes nothing: the file is the one the first start wrote.
    rmSync(file!);
    const again = await startToFile(path.join(dir, 'again.log'));
    expect(await again.stop()).toBe(0);
    expect(again.lines().join('\n')).not.toContain('credentials_file');
    expect(existsSync(file!)).toBe(false);
  });
});

describe('handOverCredentials', () => {
  const blocks = [{ title: 'Notes API', fields: [{ label: 'administrator key', value: 'vnk_secret' }] }];
  const recorder = () => {
    const entries: { level: string; fields: unknown; message: string }[] = [];
    const at = (level: string) => (fields: unknown, message: string) => entries.push({ level, fields, message });
    return { entries, logger: { warn: at('warn'), error: at('error') } as never };
  };

  it('prints them on a terminal and writes no file', async () => {
    const printed: string[] = [];
    const { entries, logger } = recorder();
    const target = path.join(dir, 'tty');
    const file = await handOverCredentials(blocks, 'http://x/docs', {
      isTTY: true,
      write: (text) => printed.push(text),
      dataDir: target,
      logger,
    });
    expect(file).toBeNull();
    expect(printed.join('')).toContain('administrator key  vnk_secret');
    expect(existsSync(target)).toBe(false);
    expect(entries).toEqual([]);
  });

  it('replaces a file an earlier first run left with a new 0600 one', async () => {
    const target = path.join(dir, 'again');
    const { logger } = recorder();
    await handOverCredentials(blocks, 'http://x/docs', { isTTY: false, write: () => {}, dataDir: target, logger });
    writeFileSync(path.join(target, CREDENTIALS_FILE), 'old', { mode: 0o644 });
    const file = await handOverCredentials(blocks, 'http://x/docs', { isTTY: false, write: () => {}, dataDir: target, logger });
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(readFileSync(file!, 'utf8')).toContain('vnk_secret');
  });

  it('when the file cannot be written, logs the path and the failure, never the secret', async () => {
    const blocked = path.join(dir, 'not-a-directory');
    writeFileSync(blocked, '');
    const { entries, logger } = recorder();
    const printed: string[] = [];
    const file = await handOverCredentials(blocks, 'http://x/docs', {
      isTTY: false,
      write: (text) => printed.push(text),
      dataDir: blocked,
      logger,
    });
    expect(file).toBeNull();
    expect(printed).toEqual([]);
    expect(entries.map((entry) => entry.level)).toEqual(['error']);
    expect(JSON.stringify(entries)).not.toContain('vnk_secret');
  });
});
