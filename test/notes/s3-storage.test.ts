import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, describe, expect, it } from 'vitest';
import { createClinic } from '../../src/notes/clinics/clinics.service.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, postNote, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// Audio in an S3-compatible bucket (s3rver: a local server speaking the S3 protocol), read back by
// the worker: the OpenAI-compatible fake receives exactly the uploaded bytes.

const bucketDir = mkdtempSync(path.join(tmpdir(), 'vetflow-s3-'));
const s3 = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory: bucketDir,
  configureBuckets: [{ name: 'vetflow-audio', configs: [] }],
});
const { port } = (await s3.run()) as { port: number };
const whisper = await startFakeServer();
afterAll(async () => {
  await whisper.close();
  await s3.close();
  rmSync(bucketDir, { recursive: true, force: true });
});

const { app, db, config } = await createTestApp({
  startWorkers: true,
  env: {
    STORAGE_DRIVER: 's3',
    S3_BUCKET: 'vetflow-audio',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: whisper.baseUrl,
  },
});
const clinic = await createClinicWithKeys(db.database);

function objectsInBucket(): string[] {
  return readdirSync(bucketDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('._S3rver_object'))
    .map((entry) => entry.name);
}

describe('S3-compatible audio storage', () => {
  it('stores the upload in the bucket and the worker transcribes the same bytes', async () => {
    whisper.handle((_request, response) => json(response, 200, { text: 'Anamnese: tosse há dois dias.', segments: [] }));
    const id = await uploadNote(app, clinic.editor, { name: 'S3' });
    expect(objectsInBucket().length).toBe(1);
    expect(readdirSync(config.DATA_DIR, { recursive: true }).filter((name) => String(name).endsWith('.mp3'))).toEqual([]);

    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    // The audio route asks the bucket for the range only, and answers exactly those bytes.
    const range = await app.inject({
      method: 'GET',
      url: `/notes/v1/notes/${id}/audio`,
      headers: { 'x-api-key': clinic.viewer, range: 'bytes=100-1099' },
    });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 100-1099/${fixture('consultation.mp3').length}`);
    expect(range.rawPayload.equals(fixture('consultation.mp3').subarray(100, 1100))).toBe(true);
    const whole = await app.inject({ method: 'GET', url: `/notes/v1/notes/${id}/audio`, headers: { 'x-api-key': clinic.viewer } });
    expect(whole.rawPayload.equals(fixture('consultation.mp3'))).toBe(true);
    const sent = whisper.requests.at(-1)?.body ?? Buffer.alloc(0);
    expect(sent.includes(fixture('consultation.mp3'))).toBe(true);
  });

  it('leaves nothing in the bucket when an upload is rejected', async () => {
    const before = objectsInBucket().length;
    const { adminKey } = await createClinic({ name: 'q', quotaMinutes: 0 }, db.database.db);
    const rejected = await postNote(app, adminKey, {
      audio: { bytes: fixture('consultation.mp3'), fileName: 'c.mp3' },
      metadata: { name: 'Over quota' },
    });
    expect(rejected.statusCode).toBe(403);
    expect(objectsInBucket().length).toBe(before);
  });
});
