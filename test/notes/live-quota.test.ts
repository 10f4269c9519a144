import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { filesUnder, fixture, multipartBody } from '../helpers/uploads.ts';

// The monthly quota counts a live note's parts in the month each arrives (docs/notes-live.md,
// "Limits, quota"): a live note created last month and filled this month is this month's, part by
// part; the parts that came last month are not.

const { app, db, config } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const sqlDb = db.database.db;
const PART = fixture('consultation.wav');
const PART_SECONDS = 23.67;

const putPart = (id: string, n: number) =>
  app.inject({
    method: 'PUT',
    url: `${PREFIX}/notes/${id}/parts/${n}`,
    headers: { 'x-api-key': clinic.editor, 'content-type': 'audio/wav' },
    payload: PART,
  });
async function upload() {
  const body = await multipartBody({ audio: { bytes: fixture('consultation.mp3'), fileName: 'a.mp3' }, metadata: { name: 'Upload' } });
  return app.inject({
    method: 'POST',
    url: `${PREFIX}/notes`,
    payload: body.payload,
    headers: { ...body.headers, 'x-api-key': clinic.editor },
  });
}
const count = async (query: ReturnType<typeof sql>) => ((await sqlDb.execute(query)) as unknown as { rows: { n: number }[] }).rows[0]!.n;

describe('a live note filled across a month boundary', () => {
  it("charges each part to the month it arrives in, and refuses the part past this month's quota", async () => {
    await sqlDb.execute(sql`update clinics set quota_minutes = 1 where id = ${clinic.clinicId}`);
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      headers: { 'x-api-key': clinic.editor },
      payload: { name: 'Virada do mês' },
    });
    const id = created.json().data.id as string;
    expect((await putPart(id, 1)).statusCode).toBe(201);
    // Created, and its first part received, on the last day of last month.
    const lastMonth = sql`date_trunc('month', now()) - interval '1 hour'`;
    await sqlDb.execute(sql`update notes set created_at = ${lastMonth}, capture_touched_at = ${lastMonth} where id = ${id}`);
    await sqlDb.execute(sql`update note_parts set received_at = ${lastMonth} where note_id = ${id}`);

    // This month: 1 minute of quota, ~23.7 s a part. Part 1 was last month's.
    expect((await putPart(id, 2)).statusCode).toBe(201);
    expect((await putPart(id, 3)).statusCode).toBe(201);
    const refused = await putPart(id, 4);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota_limit: 1 } });
    expect(refused.json().details.current_usage).toBeCloseTo((2 * PART_SECONDS) / 60, 1);
    // The refused part left nothing: no row, no file.
    expect(await count(sql`select count(*)::int as n from note_parts where note_id = ${id}`)).toBe(3);
    expect(filesUnder(path.join(config.DATA_DIR, 'audio')).filter((file) => file.includes(`${id}/part-4-`))).toEqual([]);
    expect(filesUnder(path.join(config.DATA_DIR, 'tmp', 'parts'))).toEqual([]);

    // The parts count for uploads too: a 23.8 s upload no longer fits.
    expect((await upload()).json().code).toBe('QUOTA_EXCEEDED');

    // Deleting the note gives nothing back: this month's parts stay charged (its erasure's quota_seconds).
    const deleted = await app.inject({ method: 'DELETE', url: `${PREFIX}/notes/${id}`, headers: { 'x-api-key': clinic.admin } });
    expect(deleted.statusCode).toBe(204);
    const [erased] = (
      (await sqlDb.execute(sql`select quota_seconds from note_erasures where note_id = ${id}`)) as unknown as {
        rows: { quota_seconds: number }[];
      }
    ).rows;
    expect(Number(erased!.quota_seconds)).toBeCloseTo(2 * PART_SECONDS, 0);
    expect((await upload()).json().code).toBe('QUOTA_EXCEEDED');
  });
});
