import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { demoNotesKey, startServer } from '../helpers/processes.ts';
import { uploadNoteOverHttp } from '../helpers/uploads.ts';

// A worker process killed (SIGKILL) in the middle of a job must not leave the note in
// `processing` for good: its silent heartbeat hands the job to the next worker.

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-crash-'));
const postgres = await createEmptyPostgresDatabase();
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
});

const env = {
  DATA_DIR: dataDir,
  ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  TRANSCRIPTION_HEARTBEAT_SECONDS: '10',
  JOB_SUPERVISE_INTERVAL_SECONDS: '1',
  JOB_POLLING_INTERVAL_SECONDS: '0.5',
};

describe(`a worker killed mid-job (${postgres ? 'Postgres' : 'embedded'})`, () => {
  it('leaves a note that another worker completes', async () => {
    const first = await startServer({ ...env, SANDBOX_TRANSCRIPTION_DELAY_MS: '600000' });
    // The demo key, from the first-run credentials file (stdout is a pipe here).
    const key = demoNotesKey(first);

    const id = await uploadNoteOverHttp(first.baseUrl, key, { name: 'Crash' });
    const status = async (baseUrl: string) =>
      ((await (await fetch(`${baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': key } })).json()) as { status: string })
        .status;
    await eventually(async () => (await status(first.baseUrl)) === 'processing', 15_000, 100);

    const killed = await first.stop('SIGKILL');
    expect(killed.code).toBeNull();

    const second = await startServer(env);
    try {
      expect(await status(second.baseUrl)).toBe('processing');
      await eventually(async () => (await status(second.baseUrl)) === 'completed', 60_000, 500);
      const note = (await (await fetch(`${second.baseUrl}/notes/v1/notes/${id}`, { headers: { 'x-api-key': key } })).json()) as {
        data: { note_sections: unknown[] };
      };
      expect(note.data.note_sections.length).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
