import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { startGatedTranscriber } from '../helpers/gated-transcriber.ts';
import { demoNotesKey, type RunningServer, startServer } from '../helpers/processes.ts';
import { uploadNoteOverHttp } from '../helpers/uploads.ts';

// PROCESSING_MAX_PER_CLINIC counted across worker processes: two real processes on one Postgres,
// each with four slots, and one clinic with more notes than both together. The transcription
// server counts the requests it holds at once: one per running note (short audio goes whole).

// Each test on a database of its own: a fresh one gives the first process its demo clinic's key.
const postgres = await createEmptyPostgresDatabase();
const afterCrash = postgres ? await createEmptyPostgresDatabase() : undefined;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await postgres?.drop();
  await afterCrash?.drop();
});

function envFor(stt: Awaited<ReturnType<typeof startGatedTranscriber>>, extra: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-fair-'));
  dirs.push(dataDir);
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: postgres!.url,
    JOB_POLLING_INTERVAL_SECONDS: '0.5',
    TRANSCRIPTION_CONCURRENCY: '4',
    ...stt.env(),
    ...extra,
  };
}

async function statusOf(server: RunningServer, key: string, id: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/notes/v1/notes/${id}/status`, { headers: { 'x-api-key': key } });
  return ((await response.json()) as { status: string }).status;
}

async function allCompleted(server: RunningServer, key: string, ids: string[]): Promise<boolean> {
  for (const id of ids) if ((await statusOf(server, key, id)) !== 'completed') return false;
  return true;
}

describe.runIf(postgres)('per-clinic cap across worker processes', () => {
  it('never runs more than PROCESSING_MAX_PER_CLINIC notes of one clinic at once on two workers, each note once', async () => {
    const stt = await startGatedTranscriber({ latencyMs: 150 });
    afterAll(() => stt.close());
    const env = envFor(stt, { PROCESSING_MAX_PER_CLINIC: '2' });
    const first = await startServer(env);
    // The same DATA_DIR: local storage holds the audio both processes read.
    const second = await startServer(env);
    try {
      const key = demoNotesKey(first);
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) ids.push(await uploadNoteOverHttp(first.baseUrl, key, { name: `Lote ${i}` }));
      // Eight slots free between the two processes, and the clinic holds two of them.
      await eventually(async () => stt.inFlight === 2, 15_000, 50);
      stt.release();
      await eventually(() => allCompleted(second, key, ids), 60_000, 250);
      expect(stt.mostInFlight).toBe(2);
      expect(stt.received).toBe(ids.length);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 120_000);

  it("hands a killed worker's note on within the clinic's cap: every note completes, the killed one sent again once", async () => {
    const stt = await startGatedTranscriber();
    afterAll(() => stt.close());
    const env = envFor(stt, {
      DATABASE_URL: afterCrash!.url,
      PROCESSING_MAX_PER_CLINIC: '1',
      TRANSCRIPTION_HEARTBEAT_SECONDS: '10',
      JOB_SUPERVISE_INTERVAL_SECONDS: '1',
    });
    const first = await startServer(env);
    const key = demoNotesKey(first);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await uploadNoteOverHttp(first.baseUrl, key, { name: `Queda ${i}` }));
    await eventually(async () => stt.inFlight === 1, 15_000, 50);
    expect((await first.stop('SIGKILL')).code).toBeNull();
    stt.release();
    const second = await startServer(env);
    try {
      await eventually(() => allCompleted(second, key, ids), 90_000, 500);
      // The killed note's request, then one per note: nothing lost, nothing sent twice by the survivor.
      expect(stt.received).toBe(ids.length + 1);
    } finally {
      await second.stop();
    }
  }, 150_000);
});
