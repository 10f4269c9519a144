import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually, type TestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { startGatedTranscriber } from '../helpers/gated-transcriber.ts';
import { createLiveNote, putPart } from '../helpers/live-notes.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// One worker slot (TRANSCRIPTION_CONCURRENCY=1) and a transcription server that holds every request
// until the test releases it: while the first note is at the server, the queue behind it is built,
// then the order in which the notes were taken is read from the notes themselves.

async function fairApp(order: 'fair' | 'fifo') {
  const stt = await startGatedTranscriber();
  afterAll(() => stt.close());
  const test = await createTestApp({ startWorkers: true, env: { ...stt.env(), TRANSCRIPTION_CONCURRENCY: '1', PROCESSING_ORDER: order } });
  return { ...test, stt };
}

/** Notes of `ids` in the order a worker claimed them. */
async function takenInOrder(test: TestApp, ids: string[]): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    test.db.database.db,
    sql`select id from notes where id = any(${sql.raw(`array[${ids.map((id) => `'${id}'::uuid`).join(',')}]`)}) order by processing_started_at`,
  );
  return rows.map((row) => row.id);
}

async function processingOf(test: TestApp, key: string, id: string) {
  const response = await test.app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/status`, headers: as(key) });
  return response.json().status === 'processing';
}

/** A clinic floods the queue while its first note is at the server; then a quiet clinic sends one. */
async function floodThenQuiet(test: Awaited<ReturnType<typeof fairApp>>) {
  const flood = await createClinicWithKeys(test.db.database, 'Clínica Enchente');
  const quiet = await createClinicWithKeys(test.db.database, 'Clínica Quieta');
  const first = await uploadNote(test.app, flood.editor, { name: 'Lote 1' });
  await eventually(() => processingOf(test, flood.viewer, first), 10_000);
  const backlog: string[] = [];
  for (let i = 2; i <= 5; i++) backlog.push(await uploadNote(test.app, flood.editor, { name: `Lote ${i}` }));
  const waiting = await uploadNote(test.app, quiet.editor, { name: 'Rex' });
  test.stt.release();
  for (const id of [first, ...backlog]) expect(await waitUntilSettled(test.app, flood.viewer, id, 30_000)).toBe('completed');
  expect(await waitUntilSettled(test.app, quiet.viewer, waiting, 30_000)).toBe('completed');
  return { order: await takenInOrder(test, [first, ...backlog, waiting]), first, backlog, waiting };
}

describe('fair processing between clinics', () => {
  it("takes a quiet clinic's note as soon as the slot frees, ahead of a flooding clinic's backlog", async () => {
    const test = await fairApp('fair');
    const { order, first, backlog, waiting } = await floodThenQuiet(test);
    expect(order).toEqual([first, waiting, ...backlog]);
  }, 60_000);

  it('first come, first served with PROCESSING_ORDER=fifo: the quiet note waits for the whole backlog', async () => {
    const test = await fairApp('fifo');
    const { order, first, backlog, waiting } = await floodThenQuiet(test);
    expect(order).toEqual([first, ...backlog, waiting]);
  }, 60_000);

  it("takes a clinic's completed live capture ahead of its own waiting uploads", async () => {
    const test = await fairApp('fair');
    const clinic = await createClinicWithKeys(test.db.database, 'Clínica Ao Vivo');
    const first = await uploadNote(test.app, clinic.editor, { name: 'Upload 1' });
    await eventually(() => processingOf(test, clinic.viewer, first), 10_000);
    const uploads = [
      await uploadNote(test.app, clinic.editor, { name: 'Upload 2' }),
      await uploadNote(test.app, clinic.editor, { name: 'Upload 3' }),
    ];
    const live = await createLiveNote(test.app, clinic.editor, 'Na sala');
    expect((await putPart(test.app, clinic.editor, live, 1)).statusCode).toBe(201);
    const completed = await test.app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${live}/complete`,
      payload: { parts: 1 },
      headers: as(clinic.editor),
    });
    expect(completed.statusCode, completed.body).toBeLessThan(300);
    test.stt.release();
    for (const id of [first, ...uploads, live]) expect(await waitUntilSettled(test.app, clinic.viewer, id, 30_000)).toBe('completed');
    expect(await takenInOrder(test, [first, ...uploads, live])).toEqual([first, live, ...uploads]);
  }, 60_000);
});
