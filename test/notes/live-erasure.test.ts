import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createLiveNote, putPart } from '../helpers/live-notes.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';

// A live note's parts are files of its recording: deleting the note removes them with it.

const { app, db } = await createTestApp();
const clinic = await createClinicWithKeys(db.database);
const audioDir = path.join(app.vetflow.config.DATA_DIR, 'audio');
const filesOf = (noteId: string) =>
  readdirSync(audioDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.includes(noteId) && file.includes('part-'));

describe('erasure of a live note', () => {
  it('deletes the files of its parts', async () => {
    const noteId = await createLiveNote(app, clinic.editor, 'Parte apagada');
    const part = await putPart(app, clinic.editor, noteId, 1);
    expect(part.statusCode, part.body).toBe(201);
    expect(filesOf(noteId)).toHaveLength(1);

    const deleted = await app.inject({ method: 'DELETE', url: `${PREFIX}/notes/${noteId}`, headers: { 'x-api-key': clinic.admin } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    await eventually(async () => filesOf(noteId).length === 0);
    const parts = await app.inject({ method: 'GET', url: `${PREFIX}/notes/${noteId}/parts`, headers: { 'x-api-key': clinic.viewer } });
    expect(parts.json().code).toBe('NOTE_NOT_FOUND');
  });
});
