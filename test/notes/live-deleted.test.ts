import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { raceBehindLock } from '../helpers/database.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { filesUnder, fixture } from '../helpers/uploads.ts';

// A live note deleted while one of its parts or its `complete` is under way: the request answers
// 404 NOTE_NOT_FOUND, as for any missing note, and leaves no file behind. The deletion is made to
// happen at the worst moment: it holds the note's row lock (an uncommitted DELETE) while the part,
// already received, checked and stored, waits for that lock to be recorded. Postgres only.

const { app, db, config } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const headers = { 'x-api-key': clinic.editor };
const deleteNote = 'delete from notes where id = $1';

async function liveNote(parts: number): Promise<string> {
  const created = await app.inject({ method: 'POST', url: `${PREFIX}/notes/live`, headers, payload: { name: 'Apagada no meio' } });
  const id = created.json().data.id as string;
  for (let n = 1; n <= parts; n++) {
    const part = await putPart(id, n);
    expect(part.statusCode, part.body).toBe(201);
  }
  return id;
}
const putPart = (id: string, n: number) =>
  app.inject({
    method: 'PUT',
    url: `${PREFIX}/notes/${id}/parts/${n}`,
    headers: { ...headers, 'content-type': 'audio/wav' },
    payload: fixture('consultation.wav'),
  });

describe.skipIf(!db.url)('a live note deleted mid-request', () => {
  it('answers a part upload 404 NOTE_NOT_FOUND and keeps none of its bytes', async () => {
    const id = await liveNote(1);
    const answer = await raceBehindLock(db.url!, deleteNote, [id], 1, () => putPart(id, 2));
    expect(answer.statusCode, answer.body).toBe(404);
    expect(answer.json().code).toBe('NOTE_NOT_FOUND');
    // Part 1's file is the erasure's to delete (not run here); part 2's never stays.
    expect(filesUnder(path.join(config.DATA_DIR, 'audio')).filter((file) => file.includes(`${id}/part-2-`))).toEqual([]);
    expect(filesUnder(path.join(config.DATA_DIR, 'tmp', 'parts'))).toEqual([]);
  });

  it('answers complete 404 NOTE_NOT_FOUND', async () => {
    const id = await liveNote(1);
    const answer = await raceBehindLock(db.url!, deleteNote, [id], 1, () =>
      app.inject({ method: 'POST', url: `${PREFIX}/notes/${id}/complete`, headers, payload: { parts: 1 } }),
    );
    expect(answer.statusCode, answer.body).toBe(404);
    expect(answer.json().code).toBe('NOTE_NOT_FOUND');
  });
});
