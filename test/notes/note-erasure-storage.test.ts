import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// A note's recording in an S3-compatible bucket (s3rver) that is unreachable when the note is
// deleted: the deletion still answers 204 with every row gone, and the purge job sent with it
// deletes the object once the bucket answers again — nothing is left behind.

const bucketDir = mkdtempSync(path.join(tmpdir(), 'vetflow-s3-erasure-'));
const s3 = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory: bucketDir,
  configureBuckets: [{ name: 'vetflow-audio', configs: [] }],
});
const { port } = (await s3.run()) as { port: number };
const proxy = await TcpProxy.start('127.0.0.1', port);
afterAll(async () => {
  await proxy.close();
  await s3.close();
  rmSync(bucketDir, { recursive: true, force: true });
});

const t = await createTestApp({
  startWorkers: true,
  env: {
    STORAGE_DRIVER: 's3',
    S3_BUCKET: 'vetflow-audio',
    S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  },
});
const { app } = t;
const clinic = await createClinicWithKeys(t.db.database);

const objectsInBucket = () =>
  readdirSync(bucketDir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && entry.name.endsWith('._S3rver_object'),
  ).length;

describe('deleting a note while its storage is unreachable', () => {
  it('answers 204 at once, and the purge job deletes the recording when storage is back', { timeout: 120_000 }, async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Nuvem' });
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    expect(objectsInBucket()).toBe(1);

    await proxy.refuse();
    const deleted = await app.inject({
      method: 'DELETE',
      url: `${PREFIX}/notes/${id}`,
      headers: { 'x-api-key': clinic.admin },
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: { 'x-api-key': clinic.admin } })).statusCode).toBe(
      404,
    );
    expect(t.logs.some((line) => line.includes('files of deleted notes left to the purge job'))).toBe(true);
    // The job failed too while the bucket was unreachable, and waits for its retry; the object is still there.
    const db = t.db.database.db;
    await eventually(async () => {
      const result = (await db.execute(
        sql`select retry_count from pgboss.job where name = 'notes.purge-files' and retry_count > 0`,
      )) as unknown as { rows: unknown[] };
      return result.rows.length > 0;
    }, 30_000);
    expect(objectsInBucket()).toBe(1);

    await proxy.pass();
    await eventually(async () => objectsInBucket() === 0, 60_000, 250);
  });
});
