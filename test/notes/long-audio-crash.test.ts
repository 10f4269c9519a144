import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { demoNotesKey, startServer } from '../helpers/processes.ts';
import { filesUnder, uploadNoteOverHttp } from '../helpers/uploads.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import { toneFile } from '../providers/tone-audio.ts';

// A worker killed (SIGKILL) while a long note's chunks are in flight: the next worker sends only
// the chunks whose transcripts were not yet stored, and the killed worker's temporary files go.

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-long-crash-'));
const postgres = await createEmptyPostgresDatabase();
// Slow enough to kill the worker between chunks: 10 ms per second of audio.
const speech = await startFakeSpeechServer({ msPerAudioSecond: 10 });
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
  TRANSCRIPTION_MAX_REQUEST_SECONDS: '200',
  TRANSCRIPTION_CHUNK_CONCURRENCY: '2',
  TRANSCRIPTION_HEARTBEAT_SECONDS: '10',
  JOB_SUPERVISE_INTERVAL_SECONDS: '1',
  JOB_POLLING_INTERVAL_SECONDS: '0.5',
};

describe(`a worker killed mid-note (${postgres ? 'Postgres' : 'embedded'})`, () => {
  it('leaves a note whose missing chunks alone another worker sends', async () => {
    const first = await startServer(env);
    const key = demoNotesKey(first);
    const seconds = 900;
    const id = await uploadNoteOverHttp(
      first.baseUrl,
      key,
      { name: 'Crash' },
      { bytes: readFileSync(await toneFile('mp3', seconds)), fileName: 'long.mp3' },
    );
    const status = async (baseUrl: string) =>
      (await (await fetch(`${baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': key } })).json()) as {
        status: string;
        progress?: number;
      };

    // Kill it once at least one chunk's transcript is stored and others are still to come.
    const progress = await eventually(
      async () => {
        const { progress } = await status(first.baseUrl);
        return progress !== undefined && progress > 0 && progress < 1 ? progress : undefined;
      },
      60_000,
      50,
    );
    await first.stop('SIGKILL');
    const killedAt = Date.now();
    const tempDir = path.join(dataDir, 'tmp', 'transcription');
    // The dead worker's copy of the audio is still there...
    expect(filesUnder(tempDir).length).toBeGreaterThan(0);

    const second = await startServer(env);
    try {
      await eventually(async () => (await status(second.baseUrl)).status === 'completed', 90_000, 500);
      const transcript = (
        (await (await fetch(`${second.baseUrl}/notes/v1/notes/${id}/transcription`, { headers: { 'x-api-key': key } })).json()) as {
          data: { text: string };
        }
      ).data;
      expect(transcript.text.split(' ')).toEqual(Array.from({ length: seconds }, (_, k) => `w${k}`));
    } finally {
      await second.stop();
    }
    const total = new Set(speech.requests.map((request) => request.seconds[0])).size;
    // Requests the dead worker sent before it died may still be answered (and recorded) after.
    const resent = speech.requests.filter((request) => request.receivedAt > killedAt);
    // The chunks stored before the kill (progress × chunks) were not asked for again.
    expect(resent.length).toBeLessThanOrEqual(total - Math.round(progress * total));
    // ...and gone once the next worker is done.
    expect(filesUnder(tempDir)).toEqual([]);
  }, 180_000);
});
