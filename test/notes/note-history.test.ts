import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { putPart } from '../helpers/live-notes.ts';
import { createClinicWithKeys, notesRoutes, PREFIX, routeLabel } from '../helpers/notes.ts';
import { fixture, multipartBody, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// Every write of the Notes router that changes a note records its event in the note's history:
// the routes are read from the app itself, so a write route added later without an event (or
// without a recipe here) fails this file. Exports and audio fetches are recorded too.

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
const historyOf = async (id: string) =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}/history`, headers: { 'x-api-key': clinic.viewer } })).json().data as any[];
const noteOf = async (id: string) =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}`, headers: { 'x-api-key': clinic.viewer } })).json().data;
async function settled(name: string): Promise<string> {
  const id = await uploadNote(app, clinic.editor, { name });
  await waitUntilSettled(app, clinic.viewer, id);
  return id;
}

async function liveNote(name: string): Promise<string> {
  const created = await app.inject({
    method: 'POST',
    url: `${PREFIX}/notes/live`,
    headers: { 'x-api-key': clinic.editor },
    payload: { name },
  });
  return created.json().data.id;
}

interface Recipe {
  /** Builds what the request acts on; returns the note whose history must grow, and the request. */
  prepare(): Promise<{ noteId?: string; url: string; payload?: object; headers?: Record<string, string> }>;
  /** The event the route must record (the note id comes from the answer when `prepare` has none). */
  event: string;
  status: number;
}

const recipes: Record<string, Recipe> = {
  [`POST ${PREFIX}/notes`]: {
    event: 'created',
    status: 201,
    async prepare() {
      const body = await multipartBody({ audio: { bytes: fixture('consultation.mp3'), fileName: 'a.mp3' }, metadata: { name: 'Nova' } });
      return { url: `${PREFIX}/notes`, payload: body.payload, headers: body.headers };
    },
  },
  [`POST ${PREFIX}/notes/:noteId/retry`]: {
    event: 'retried',
    status: 202,
    async prepare() {
      const noteId = await settled('FAIL');
      return { noteId, url: `${PREFIX}/notes/${noteId}/retry` };
    },
  },
  [`POST ${PREFIX}/transcripts/retry`]: {
    event: 'retried',
    status: 202,
    async prepare() {
      const noteId = await settled('FAIL');
      return { noteId, url: `${PREFIX}/transcripts/retry`, payload: { note_id: noteId } };
    },
  },
  [`PATCH ${PREFIX}/note_sections`]: {
    event: 'section_edited',
    status: 200,
    async prepare() {
      const noteId = await settled('Editada');
      const section = (await noteOf(noteId)).note_sections[0];
      return {
        noteId,
        url: `${PREFIX}/note_sections?section_id=${section.id}`,
        payload: { title: 'Novo título', content: 'Novo texto', order: '9' },
      };
    },
  },
  [`PUT ${PREFIX}/notes/:id/plan`]: {
    event: 'plan_replaced',
    status: 200,
    async prepare() {
      const noteId = await settled('Plano');
      return {
        noteId,
        url: `${PREFIX}/notes/${noteId}/plan`,
        payload: {
          medications: [],
          exams: [],
          vaccines: [],
          follow_ups: [{ text: 'retorno em 15 dias', kind: 'recheck', due_in_days: 15 }],
        },
      };
    },
  },
  [`POST ${PREFIX}/notes/:id/sign`]: {
    event: 'signed',
    status: 200,
    async prepare() {
      const noteId = await settled('Assinar');
      return { noteId, url: `${PREFIX}/notes/${noteId}/sign`, payload: { signed_by: ANA, acknowledge_flags: true } };
    },
  },
  [`POST ${PREFIX}/notes/:id/amendments`]: {
    event: 'amended',
    status: 201,
    async prepare() {
      const noteId = await settled('Emendar');
      await app.inject({
        method: 'POST',
        url: `${PREFIX}/notes/${noteId}/sign`,
        headers: { 'x-api-key': clinic.editor },
        payload: { signed_by: ANA, acknowledge_flags: true },
      });
      const section = (await noteOf(noteId)).note_sections[0];
      return {
        noteId,
        url: `${PREFIX}/notes/${noteId}/amendments`,
        payload: { section_id: section.id, content: 'c', reason: 'r', signed_by: ANA },
      };
    },
  },
  [`POST ${PREFIX}/notes/live`]: {
    event: 'created',
    status: 201,
    async prepare() {
      return { url: `${PREFIX}/notes/live`, payload: { name: 'Ao vivo' } };
    },
  },
  [`PUT ${PREFIX}/notes/:id/parts/:n`]: {
    event: 'part_received',
    status: 201,
    async prepare() {
      const noteId = await liveNote('Parte');
      return {
        noteId,
        url: `${PREFIX}/notes/${noteId}/parts/1`,
        payload: fixture('consultation.wav'),
        headers: { 'content-type': 'audio/wav' },
      };
    },
  },
  [`POST ${PREFIX}/notes/:id/complete`]: {
    event: 'capture_completed',
    status: 202,
    async prepare() {
      const noteId = await liveNote('Concluir');
      const part = await putPart(app, clinic.editor, noteId, 1);
      expect(part.statusCode, part.body).toBe(201);
      return { noteId, url: `${PREFIX}/notes/${noteId}/complete`, payload: { parts: 1 } };
    },
  },
  // Reads the history records too.
  [`GET ${PREFIX}/notes/:id/export`]: {
    event: 'exported',
    status: 200,
    async prepare() {
      const noteId = await settled('Exportar');
      return { noteId, url: `${PREFIX}/notes/${noteId}/export?format=rtf` };
    },
  },
  [`GET ${PREFIX}/notes/:id/audio`]: {
    event: 'audio_fetched',
    status: 206,
    async prepare() {
      const noteId = await settled('Ouvir');
      return { noteId, url: `${PREFIX}/notes/${noteId}/audio`, headers: { range: 'bytes=0-1' } };
    },
  },
};

// Writes that change no note: keys and webhook endpoints have their own trails; clinic settings
// (and templates) are read when a note is made and never change one already made.
// Erasures (`/erasures`, and DELETE /notes/{id}) remove the note with its history: they are written
// in the erasure log instead (test/notes/note-erasure.test.ts).
const notNoteWrites = [`${PREFIX}/api-keys`, `${PREFIX}/webhooks`, `${PREFIX}/settings`, `${PREFIX}/templates`, `${PREFIX}/erasures`];
const erasesTheNote = `DELETE ${PREFIX}/notes/:id`;
await app.ready();
const writeRoutes = notesRoutes(app)
  .filter((route) => route.method !== 'GET' && !notNoteWrites.some((prefix) => route.url.startsWith(prefix)))
  .filter((route) => routeLabel(route) !== erasesTheNote)
  .map(routeLabel);

describe('note history', () => {
  it('has a recipe for every write route of the Notes router', () => {
    expect(writeRoutes.length).toBeGreaterThanOrEqual(6);
    for (const route of writeRoutes)
      expect(recipes[route], `${route} writes a note: give it a history event and a recipe here`).toBeDefined();
  });

  it.each(Object.entries(recipes))('%s records its event with the key, the request id and the time', async (label, recipe) => {
    const [method] = label.split(' ');
    const { noteId: known, url, payload, headers } = await recipe.prepare();
    const before = known ? (await historyOf(known)).length : 0;
    const requestId = `history-${recipe.event}-${Math.random().toString(16).slice(2, 8)}`;
    const response = await app.inject({
      method: method as 'POST',
      url,
      headers: { 'x-api-key': clinic.editor, 'x-request-id': requestId, ...headers },
      ...(payload ? { payload: payload as object } : {}),
    });
    expect(response.statusCode, response.body).toBe(recipe.status);
    const noteId = known ?? response.json().data.id;
    const history = await historyOf(noteId);
    const mine = history.filter((event) => event.request_id === requestId);
    expect(history.length).toBeGreaterThan(before);
    expect(mine).toEqual([
      {
        event: recipe.event,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        key_id: clinic.editorId,
        key_name: 'editor',
        request_id: requestId,
        details: expect.any(Object),
      },
    ]);
  });

  it('keeps what the worker wrote keyless, section edits with before and after, and a refused request out', async () => {
    const completed = await settled('Completa');
    const failed = await settled('FAIL');
    const [created, done] = await historyOf(completed);
    expect(created).toMatchObject({ event: 'created', key_id: clinic.editorId, key_name: 'editor' });
    expect(done).toMatchObject({ event: 'completed', key_id: null, key_name: null, request_id: null, details: { note_style: 'verbatim' } });
    expect((await historyOf(failed)).at(-1)).toMatchObject({
      event: 'failed',
      key_id: null,
      request_id: null,
      details: { code: expect.any(String) },
    });

    const section = (await noteOf(completed)).note_sections[0];
    await app.inject({
      method: 'PATCH',
      url: `${PREFIX}/note_sections?section_id=${section.id}`,
      headers: { 'x-api-key': clinic.editor },
      payload: { title: 'Anamnese revisada', content: 'Texto revisado', order: section.order },
    });
    expect((await historyOf(completed)).at(-1)).toMatchObject({
      event: 'section_edited',
      details: {
        section_id: section.id,
        before: { title: section.title, label: section.label, content: section.content, order: section.order },
        after: { title: 'Anamnese revisada', label: section.label, content: 'Texto revisado', order: section.order },
      },
    });

    // A sandbox note has its simulated_transcript flag open: signing acknowledges it.
    const signed = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${completed}/sign`,
      headers: { 'x-api-key': clinic.editor },
      payload: { signed_by: ANA, acknowledge_flags: true },
    });
    expect(signed.json().data.signature.flags_acknowledged).toBe(true);

    const before = await historyOf(completed);
    const refusals = [
      app.inject({
        method: 'POST',
        url: `${PREFIX}/notes/${completed}/sign`,
        headers: { 'x-api-key': clinic.editor },
        payload: { signed_by: ANA },
      }),
      app.inject({ method: 'GET', url: `${PREFIX}/notes/${failed}/export`, headers: { 'x-api-key': clinic.editor } }),
      app.inject({
        method: 'GET',
        url: `${PREFIX}/notes/${completed}/audio`,
        headers: { 'x-api-key': clinic.editor, range: 'bytes=99999999-' },
      }),
      app.inject({
        method: 'GET',
        url: `${PREFIX}/notes/${completed}/export`,
        headers: { 'x-api-key': clinic.viewer },
        query: { format: 'pdf' },
      }),
    ];
    for (const response of await Promise.all(refusals)) expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(await historyOf(completed)).toEqual(before);
  });
});
