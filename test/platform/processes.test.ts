import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { runCli, startServer } from '../helpers/processes.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-proc-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the server process on the embedded database', () => {
  it('starts with no database server, serves health and docs, and stops cleanly on SIGTERM', async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/docs/`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/notes/v1/openapi.json`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/flow/v1/openapi.json`)).status).toBe(200);

    // While the server holds the embedded data directory, the CLI refuses clearly.
    const refused = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/in use by process \d+/);

    const { code, ms } = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(server.output.join('\n')).toMatch(/shutting down/);

    // The lock went with the server: the CLI can open the directory now.
    const migrated = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(migrated).toMatchObject({ code: 0, stdout: '{"migrated":true}\n' });
  });

  it('on SIGTERM with a drain period, fails /readyz at once but keeps serving until the period ends', async () => {
    const drainDir = mkdtempSync(path.join(tmpdir(), 'vetflow-drain-'));
    try {
      const server = await startServer({ DATA_DIR: drainDir, SHUTDOWN_DRAIN_MS: '1500' });
      const stopping = server.stop('SIGTERM');
      // The signal is handled within a tick or two; then readiness says no, and requests still work.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ code: 'NOT_READY', details: { checks: { shutdown: 'draining' } } });
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      const { code, ms } = await stopping;
      expect(code).toBe(0);
      expect(ms).toBeGreaterThanOrEqual(1_500);
    } finally {
      rmSync(drainDir, { recursive: true, force: true });
    }
  });

  it('refuses a bad setting with one line naming the variable', async () => {
    await expect(startServer({ DATA_DIR: dataDir, ROLE: 'everything' })).rejects.toThrow(/Invalid configuration: ROLE/);
  });
});

describe('the operator CLI', () => {
  it('prints one JSON object for migrate', async () => {
    const result = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ migrated: true });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('fails an unknown command with one line on stderr and nothing on stdout', async () => {
    const result = await runCli(['frobnicate'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/unknown command/);
  });

  it('fails an unknown flag the same way', async () => {
    const result = await runCli(['migrate', '--force'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--force/);
  });
});

const empty = await createEmptyPostgresDatabase();
afterAll(async () => empty?.drop());

describe.runIf(empty)('the server process on real Postgres', () => {
  it('migrates an empty database, and restarts on it with a no-op migration', async () => {
    const env = { DATABASE_URL: empty?.url ?? '', DATA_DIR: dataDir };
    for (let round = 0; round < 2; round++) {
      const server = await startServer(env);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ checks: { database: 'ok', jobs: 'ok' } });
      const { code } = await server.stop('SIGTERM');
      expect(code).toBe(0);
    }
    const cli = await runCli(['migrate'], env);
    expect(cli).toMatchObject({ code: 0, stdout: '{"migrated":true}\n' });
  });
});
