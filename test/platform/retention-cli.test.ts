import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type Database, openEmbedded, openPostgres } from '../../src/platform/db/client.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { runCli } from '../helpers/processes.ts';

// `vetflow retention run` through the real CLI process, on the database kind of this run: what an
// operator (or a test) runs to apply every retention now. One JSON object on stdout.

const pg = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-retention-cli-'));
afterAll(async () => {
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});
const env = { ...(pg?.url ? { DATABASE_URL: pg.url } : {}), DATA_DIR: dataDir, IDEMPOTENCY_RETENTION_HOURS: '48' };

const CLINIC = randomUUID();
const recording = path.join(dataDir, 'audio', CLINIC, 'antiga.mp3');

/** The database the CLI uses, opened while the CLI is not running (the embedded one takes one process). */
async function withDatabase(work: (database: Database) => Promise<void>) {
  const database = pg?.url ? openPostgres(pg.url, 1) : await openEmbedded(path.resolve(dataDir, 'pglite'));
  try {
    await work(database);
  } finally {
    await database.close();
  }
}

async function run() {
  const result = await runCli(['retention', 'run'], env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout) as Record<string, number>;
}

it('prints what each retention task removed, and nothing the second time', async () => {
  // The first run migrates the database (a fresh data directory has no tables yet).
  expect(await run()).toMatchObject({ contact_changes_deleted: 0, idempotency_keys_deleted: 0 });
  await withDatabase(async ({ db }) => {
    await db.execute(sql`insert into idempotency_keys (owner_id, key, scope, fingerprint, status_code, response, created_at) values
      (gen_random_uuid(), 'old', 'POST /notes', 'f', 201, '{}', now() - interval '49 hours'),
      (gen_random_uuid(), 'new', 'POST /notes', 'f', 201, '{}', now() - interval '47 hours')`);
    // A clinic keeping recordings 1 day: one completed 2 days ago (its file in the CLI's storage).
    await db.execute(sql`insert into clinics (id, name) values (${CLINIC}, 'Clínica CLI')`);
    await db.execute(sql`insert into clinic_settings (clinic_id, audio_retention_days) values (${CLINIC}, 1)`);
    await db.execute(sql`insert into notes (clinic_id, name, audio_key, audio_format, audio_bytes, audio_sha256, audio_duration_seconds,
        transcription_status, completed_at)
      values (${CLINIC}, 'Antiga', ${`${CLINIC}/antiga.mp3`}, 'mp3', 4, repeat('0', 64), 30, 'completed', now() - interval '2 days')`);
  });
  mkdirSync(path.dirname(recording), { recursive: true });
  writeFileSync(recording, 'mp3!');
  expect(await run()).toEqual({
    idempotency_keys_deleted: 1,
    contact_changes_deleted: 0,
    contact_audit_logs_deleted: 0,
    webhook_events_deleted: 0,
    audio_deleted: 1,
    erasure_log_deleted: 0,
  });
  expect(existsSync(recording)).toBe(false);
  expect(await run()).toMatchObject({ idempotency_keys_deleted: 0, audio_deleted: 0 });
  await withDatabase(async ({ db }) => {
    const rows = (await db.execute(sql`select key from idempotency_keys`)) as unknown as { rows: { key: string }[] };
    expect(rows.rows).toEqual([{ key: 'new' }]);
  });
  // Four CLI processes (each opening and migrating the embedded database when that is the kind).
}, 300_000);
