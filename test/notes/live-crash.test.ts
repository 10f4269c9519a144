import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { toneParts } from '../helpers/live-parts.ts';
import { demoNotesKey, startServer } from '../helpers/processes.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';

// A server killed (SIGKILL) in the middle of a visit keeps every part it acknowledged and, once
// restarted, transcribes them and completes the note: parts are stored and recorded (with their
// transcription job) before their 201.

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-live-crash-'));
const postgres = await createEmptyPostgresDatabase();
const speech = await startFakeSpeechServer({ msPerAudioSecond: 20 });
afterAll(async () => {
  await speech.close();
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
});

const env = {
  DATA_DIR: dataDir,
  ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  TRANSCRIPTION_PROVIDER: 'openai',
  TRANSCRIPTION_BASE_URL: speech.baseUrl,
  TRANSCRIPTION_HEARTBEAT_SECONDS: '10',
  TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
  JOB_SUPERVISE_INTERVAL_SECONDS: '1',
  JOB_POLLING_INTERVAL_SECONDS: '0.5',
};

const parts = await toneParts([0, 30.5, 60, 90.5, 120, 150.5, 180], () => 'mp3', 180);

describe(`a server killed mid-visit (${postgres ? 'Postgres' : 'embedded'})`, () => {
  it('keeps every acknowledged part and completes the note after restart', async () => {
    const first = await startServer(env);
    const key = demoNotesKey(first);
    const call = (baseUrl: string, method: string, url: string, body?: Uint8Array | object) =>
      fetch(`${baseUrl}/notes/v1${url}`, {
        method,
        headers: { 'x-api-key': key, ...(body && !(body instanceof Uint8Array) ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: body instanceof Uint8Array ? body : JSON.stringify(body) } : {}),
      });
    const created = await call(first.baseUrl, 'POST', '/notes/live', { name: 'Queda' });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    for (const n of [1, 2, 3])
      expect((await call(first.baseUrl, 'PUT', `/notes/${id}/parts/${n}`, new Uint8Array(parts[n - 1]!))).status).toBe(201);

    const killed = await first.stop('SIGKILL');
    expect(killed.code).toBeNull();

    const second = await startServer(env);
    try {
      const held = (await (await call(second.baseUrl, 'GET', `/notes/${id}/parts`)).json()) as { data: { part: number }[] };
      expect(held.data.map((part) => part.part)).toEqual([1, 2, 3]);
      for (const n of [4, 5, 6])
        expect((await call(second.baseUrl, 'PUT', `/notes/${id}/parts/${n}`, new Uint8Array(parts[n - 1]!))).status).toBe(201);
      expect((await call(second.baseUrl, 'POST', `/notes/${id}/complete`, { parts: 6 })).status).toBe(202);
      await eventually(
        async () =>
          ((await (await call(second.baseUrl, 'GET', `/notes/${id}/status`)).json()) as { status: string }).status === 'completed',
        90_000,
        500,
      );
      const transcript = (await (await call(second.baseUrl, 'GET', `/notes/${id}/transcription`)).json()) as { data: { text: string } };
      expect(transcript.data.text.split(' ')).toEqual(Array.from({ length: 180 }, (_, k) => `w${k}`));
    } finally {
      await second.stop();
    }
  }, 180_000);
});
