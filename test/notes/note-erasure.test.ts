import { createHash, createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcriptionTempDir } from '../../src/notes/processing/temp-dir.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { dumpDatabase } from '../helpers/dump.ts';
import { createClinicWithKeys, notesRoutes, PREFIX, routeLabel } from '../helpers/notes.ts';
import { filesUnder, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// Erasure on the Notes side (docs/privacy.md): DELETE /notes/{id} and POST /erasures. Canary
// strings are seeded into everything a note touches — the note (name, external id, metadata),
// its transcript and sections (the sandbox tells the patient's name), section versions and history
// (an edit), signature and amendments, webhook events and deliveries (two registered endpoints, one
// failing so a delivery is still to be sent), stored Idempotency-Key answers (upload and retry),
// pg-boss's jobs, transcript chunks and a chunk file left in the working directory. After the
// erasure the whole database (every table, pg-boss's too) and the storage directories hold none.

const t = await createTestApp({ startWorkers: true, env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,3600' } });
const { app } = t;
const db = t.db.database.db;
const clinic = await createClinicWithKeys(t.db.database);
const other = await createClinicWithKeys(t.db.database, 'Outra clínica');
const receiver = await startReceiver();
const failing = await startReceiver(() => 503);
await registerWebhook(app, clinic.admin, receiver.url, ['note.completed', 'note.failed', 'note.signed', 'note.amended']);
await registerWebhook(app, clinic.admin, failing.url, ['note.completed', 'note.signed', 'note.amended']);

const audioDir = path.join(t.config.DATA_DIR, 'audio');
const tempRoot = transcriptionTempDir(t.config);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The log's digest of an id under the key this server generated (no ERASURE_LOG_KEY): erasure-log-key.test.ts. */
async function logDigest(externalId: string): Promise<string> {
  const [setting] = await rowsOf<{ key: string }>(db, sql`select value ->> 'key' as key from app_settings where key = 'erasure_log_key'`);
  return createHmac('sha256', Buffer.from(setting!.key, 'base64')).update(sha256(externalId), 'utf8').digest('hex');
}
const SIGNER = { name: 'Dra. Vet Canaria Anil', license: 'CRMV-SP 998877' };

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, key: string, payload?: object, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `${PREFIX}${url}`, headers: { 'x-api-key': key, ...headers }, ...(payload ? { payload } : {}) });

/** One patient's values, every one a canary searched for in the whole database afterwards. */
function canaries(tag: string) {
  return {
    name: `Bolinha ${tag} Quintela`,
    externalId: `TUTOR-${tag}-4242`,
    tutor: `Zuleica ${tag} Fagundes`,
    edit: `Edicao ${tag} lilas`,
    amendment: `Emenda ${tag} turquesa`,
    amendReason: `Correcao ${tag} ocre`,
    chunk: `Trecho ${tag} cinzento`,
    // The name's words as a name search keeps them (note_name_words, note_name_dictionary): folded.
    nameWord: tag.toLowerCase(),
  };
}
type Canaries = ReturnType<typeof canaries>;
const needles = (c: Canaries) => Object.values(c);

/** Uploads through the API with an Idempotency-Key (its stored answer names the patient). */
const upload = (key: string, c: Canaries, name = c.name): Promise<string> =>
  uploadNote(app, key, { name, external_id: c.externalId, metadata: [{ key: 'tutor', value: c.tutor }] }, 'consultation.mp3', {
    'idempotency-key': `upload-${Math.random().toString(16).slice(2)}`,
  });

/** A completed note of the patient with an edited section (a section version, a history event). */
async function completedNote(c: Canaries, key = clinic.editor): Promise<string> {
  const id = await upload(key, c);
  expect(await waitUntilSettled(app, key, id)).toBe('completed');
  const section = (await call('GET', `/notes/${id}`, key)).json().data.note_sections[0];
  const edited = await call('PATCH', `/note_sections?section_id=${section.id}`, key, {
    title: section.title,
    content: `${section.content} ${c.edit}`,
    order: section.order,
  });
  expect(edited.statusCode, edited.body).toBe(200);
  return id;
}

/** Signed, then amended (signature and amendment rows, two more webhook events). */
async function signAndAmend(id: string, c: Canaries): Promise<void> {
  const signed = await call('POST', `/notes/${id}/sign`, clinic.editor, { signed_by: SIGNER, acknowledge_flags: true });
  expect(signed.statusCode, signed.body).toBe(200);
  const section = signed.json().data.note_sections[0];
  const amended = await call('POST', `/notes/${id}/amendments`, clinic.editor, {
    section_id: section.id,
    content: c.amendment,
    reason: c.amendReason,
    signed_by: SIGNER,
  });
  expect(amended.statusCode, amended.body).toBe(201);
}

/** A failed note retried with an Idempotency-Key (a note_retries row, a stored answer, a new job). */
async function failedAndRetried(c: Canaries): Promise<string> {
  const id = await upload(clinic.editor, c, 'FAIL');
  expect(await waitUntilSettled(app, clinic.editor, id)).toBe('failed');
  const retried = await call('POST', `/notes/${id}/retry`, clinic.editor, undefined, { 'idempotency-key': `retry-${id}` });
  expect(retried.statusCode, retried.body).toBe(202);
  expect(await waitUntilSettled(app, clinic.editor, id)).toBe('failed');
  return id;
}

/** What a long note leaves while its chunks are transcribed: chunk rows and a file in its working directory. */
async function chunksInFlight(id: string, c: Canaries): Promise<void> {
  await db.execute(sql`insert into note_transcript_chunks (note_id, chunk_index, start_seconds, end_seconds, transcript)
    values (${id}, 0, 0, 600, ${JSON.stringify({ offsetSeconds: 0, text: c.chunk, language: 'pt', segments: [] })}::jsonb)`);
  mkdirSync(path.join(tempRoot, id), { recursive: true });
  writeFileSync(path.join(tempRoot, id, 'chunk-0.txt'), c.chunk);
}

/** Waits until every event of the notes has been tried at least once by both endpoints. */
async function webhooksTried(ids: string[]): Promise<void> {
  await eventually(async () => {
    const pending = await rowsOf<{
      n: number;
    }>(
      db,
      sql`select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where e.payload -> 'data' ->> 'note_id' in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) and d.attempts = 0`,
    );
    return pending[0]!.n === 0;
  }, 20_000);
}

/** Everything of `ids` and `c` is gone: the database dump, pg-boss's jobs, storage and working files. */
async function expectNothingLeft(ids: string[], c: Canaries): Promise<void> {
  const dump = await dumpDatabase(db);
  expect(needles(c).filter((needle) => dump.includes(needle))).toEqual([]);
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  for (const table of ['notes', 'note_sections', 'note_section_versions', 'note_signatures', 'note_amendments', 'note_history']) {
    const idColumn = table === 'notes' ? 'id' : 'note_id';
    const [left] = await rowsOf<{ n: number }>(
      db,
      sql`select count(*)::int as n from ${sql.raw(table)} where ${sql.raw(idColumn)} in (${list})`,
    );
    expect(left!.n, table).toBe(0);
  }
  for (const table of ['note_retries', 'note_transcript_chunks', 'note_follow_ups']) {
    const [left] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from ${sql.raw(table)} where note_id in (${list})`);
    expect(left!.n, table).toBe(0);
  }
  const [jobs] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from pgboss.job where data ->> 'noteId' in (${list})`);
  expect(jobs!.n).toBe(0);
  const [answers] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from idempotency_keys
    where exists (select 1 from unnest(array[${list}]::text[]) i where strpos(response::text, i) > 0)`,
  );
  expect(answers!.n).toBe(0);
  // Files go right after the commit (the purge job is the guarantee; see note-erasure-storage.test.ts).
  const files = [...filesUnder(audioDir), ...filesUnder(tempRoot)];
  expect(files.filter((file) => ids.some((id) => file.includes(id)))).toEqual([]);
}

/** Every webhook event of the notes is its shell, and no delivery of them is still to be sent. */
async function expectEventShells(ids: string[]): Promise<void> {
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const events = await rowsOf<{ id: string; type: string; payload: any }>(
    db,
    sql`select id, type, payload from webhook_events where payload -> 'data' ->> 'note_id' in (${list})`,
  );
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) {
    expect(Object.keys(event.payload).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(event.payload.type).toBe(event.type);
    expect(Object.keys(event.payload.data)).toEqual(['note_id']);
  }
  const eventIds = sql.join(
    events.map((event) => sql`${event.id}`),
    sql`, `,
  );
  const deliveries = await rowsOf<{ id: string; status: string; last_error: string | null }>(
    db,
    sql`select id, status, last_error from webhook_deliveries where event_id in (${eventIds})`,
  );
  expect(deliveries.filter((delivery) => delivery.status === 'pending' || delivery.status === 'delivering')).toEqual([]);
  const deliveryIds = sql.join(
    deliveries.map((delivery) => sql`${delivery.id}`),
    sql`, `,
  );
  const [jobs] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from pgboss.job where data ->> 'deliveryId' in (${deliveryIds})`,
  );
  expect(jobs!.n).toBe(0);
}

const erasures = async (key = clinic.admin, query = '') => (await call('GET', `/erasures${query}`, key)).json();

describe('DELETE /notes/{id}', () => {
  const c = canaries('CANARIO');
  const kept = canaries('PARDAL');
  let noteId: string;
  let keptId: string;

  it('a signed note needs a reason; nobody but the clinic administrator may delete', { timeout: 60_000 }, async () => {
    noteId = await completedNote(c);
    await signAndAmend(noteId, c);
    await chunksInFlight(noteId, c);
    keptId = await completedNote(kept);
    await webhooksTried([noteId, keptId]);
    // The failing endpoint holds deliveries still to be sent, with jobs waiting for their next attempt.
    const [waiting] = await rowsOf<{
      n: number;
    }>(
      db,
      sql`select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where e.payload -> 'data' ->> 'note_id' = ${noteId} and d.status = 'pending'`,
    );
    expect(waiting!.n).toBeGreaterThan(0);
    // Seeded: every canary is in the database, the recording and a chunk file on disk, jobs in the queue.
    const seeded = await dumpDatabase(db);
    for (const needle of needles(c)) expect(seeded).toContain(needle);
    expect(filesUnder(audioDir).filter((file) => file.includes(noteId))).toHaveLength(1);
    expect(filesUnder(tempRoot).filter((file) => file.includes(noteId))).toHaveLength(1);
    const [queued] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from pgboss.job where data ->> 'noteId' = ${noteId}`);
    expect(queued!.n).toBeGreaterThan(0);
    // The receiver got the patient's data: the events stored for it hold it too, until the erasure.
    expect(JSON.stringify(receiver.received)).toContain(c.name);
    expect(JSON.stringify(receiver.received)).toContain(c.amendment);

    for (const payload of [undefined, {}]) {
      const refused = await call('DELETE', `/notes/${noteId}`, clinic.admin, payload);
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toMatchObject({ code: 'REASON_REQUIRED', details: { field: 'reason', record_status: 'amended' } });
    }
    for (const [payload, field] of [
      [{ reason: '   ' }, 'reason'],
      [{ reason: 'x'.repeat(501) }, 'reason'],
      [{ reason: 'ok', extra: 1 }, undefined],
    ] as const) {
      const invalid = await call('DELETE', `/notes/${noteId}`, clinic.admin, payload);
      expect(invalid.statusCode, invalid.body).toBe(422);
      expect(invalid.json().code).toBe('VALIDATION_ERROR');
      if (field) expect(invalid.json().details.field).toBe(field);
    }
    expect((await call('DELETE', `/notes/${noteId}`, clinic.editor, { reason: 'r' })).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await call('DELETE', `/notes/${noteId}`, clinic.viewer, { reason: 'r' })).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    const otherClinic = await call('DELETE', `/notes/${noteId}`, other.admin, { reason: 'r' });
    expect(otherClinic.statusCode).toBe(403);
    expect(otherClinic.json().code).toBe('FORBIDDEN_TENANT');
    // Nothing was deleted by any refusal.
    expect((await call('GET', `/notes/${noteId}`, clinic.viewer)).json().data.record_status).toBe('amended');
    expect(await erasures()).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('deletes everything the note touched; every route for the id then answers 404', { timeout: 30_000 }, async () => {
    const deleted = await call('DELETE', `/notes/${noteId}`, clinic.admin, { reason: 'Pedido do titular' });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');

    await expectNothingLeft([noteId], c);
    await expectEventShells([noteId]);

    // Every route that names a note answers NOTE_NOT_FOUND (with what it needs to pass validation).
    const bodies: Record<string, object> = {
      [`POST ${PREFIX}/notes/:id/sign`]: { signed_by: SIGNER, acknowledge_flags: true },
      [`POST ${PREFIX}/notes/:id/amendments`]: { section_id: noteId, content: 'c', reason: 'r', signed_by: SIGNER },
      [`DELETE ${PREFIX}/notes/:id`]: { reason: 'again' },
      [`POST ${PREFIX}/notes/:id/complete`]: { parts: 1 },
      [`PUT ${PREFIX}/notes/:id/plan`]: { medications: [], exams: [], vaccines: [], follow_ups: [] },
    };
    const noteRoutes = notesRoutes(app).filter((route) => /\/notes\/:(id|noteId)(\/|$)/.test(route.url));
    expect(noteRoutes.length).toBeGreaterThanOrEqual(10);
    for (const route of noteRoutes) {
      const url = route.url
        .replace(/:(id|noteId)/, noteId)
        .replace(':n', '1')
        .replace(PREFIX, '');
      const response = await call(
        route.method as Method,
        `${url}${url.endsWith('/export') ? '?format=txt' : ''}`,
        clinic.admin,
        bodies[routeLabel(route)],
      );
      expect(response.statusCode, `${routeLabel(route)}: ${response.body}`).toBe(404);
      expect(response.json().code, routeLabel(route)).toBe('NOTE_NOT_FOUND');
    }
    const retry = await call('POST', '/transcripts/retry', clinic.admin, { note_id: noteId });
    expect(retry.json().code).toBe('NOTE_NOT_FOUND');

    // The log: one entry, no patient data.
    const log = await erasures();
    expect(log).toEqual({
      status: 'success',
      data: [
        {
          id: expect.any(String),
          kind: 'note',
          note_id: noteId,
          external_id_hmac: await logDigest(c.externalId),
          notes_deleted: 1,
          key_id: clinic.adminId,
          reason: 'Pedido do titular',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      ],
      meta: { total: 1, page: 1, limit: 20, total_pages: 1 },
    });
  });

  it('leaves the other notes of the clinic as they were', async () => {
    const note = (await call('GET', `/notes/${keptId}`, clinic.viewer)).json().data;
    expect(note).toMatchObject({ name: kept.name, external_id: kept.externalId, audio: { available: true, deleted_at: null } });
    expect((await call('GET', `/notes/${keptId}/audio`, clinic.viewer, undefined, { range: 'bytes=0-1' })).statusCode).toBe(206);
    const dump = await dumpDatabase(db);
    for (const needle of [kept.name, kept.externalId, kept.tutor, kept.edit]) expect(dump).toContain(needle);
    const [event] = await rowsOf<{ payload: any }>(
      db,
      sql`select payload from webhook_events where payload -> 'data' ->> 'note_id' = ${keptId} limit 1`,
    );
    expect(event!.payload.data.name).toBe(kept.name);
  });

  it('a draft is deleted without a reason, or with an empty body', async () => {
    const draft = await completedNote(canaries('TICO'));
    const deleted = await app.inject({ method: 'DELETE', url: `${PREFIX}/notes/${draft}`, headers: { 'x-api-key': clinic.admin } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await erasures()).data[0]).toMatchObject({ kind: 'note', note_id: draft, reason: null });
    expect((await call('DELETE', `/notes/${draft}`, clinic.admin)).json().code).toBe('NOTE_NOT_FOUND');
  });
});

describe('POST /erasures: a tutor asks for erasure', () => {
  const c = canaries('SABIA');

  it('erases the three notes of the patient, one of them signed, in one call', { timeout: 90_000 }, async () => {
    const signed = await completedNote(c);
    await signAndAmend(signed, c);
    const edited = await completedNote(c);
    const failed = await failedAndRetried(c);
    await chunksInFlight(edited, c);
    // The same external id in another clinic is another clinic's patient.
    const elsewhere = await completedNote(c, other.editor);
    const mine = [signed, edited, failed];
    await webhooksTried(mine);

    const seeded = await dumpDatabase(db);
    for (const needle of needles(c)) expect(seeded).toContain(needle);

    for (const [payload, field] of [
      [{ external_id: c.externalId }, 'reason'],
      [{ reason: 'r' }, 'external_id'],
      [{ external_id: c.externalId, reason: '' }, 'reason'],
      [{ external_id: c.externalId, reason: 'x'.repeat(501) }, 'reason'],
      [{ external_id: 'x'.repeat(101), reason: 'r' }, 'external_id'],
    ] as const) {
      const invalid = await call('POST', '/erasures', clinic.admin, payload);
      expect(invalid.statusCode, invalid.body).toBe(422);
      expect(invalid.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
    for (const key of [clinic.editor, clinic.viewer]) {
      const refused = await call('POST', '/erasures', key, { external_id: c.externalId, reason: 'r' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('INSUFFICIENT_PERMISSIONS');
      expect((await call('GET', '/erasures', key)).json().code).toBe('INSUFFICIENT_PERMISSIONS');
    }

    const erased = await call('POST', '/erasures', clinic.admin, { external_id: c.externalId, reason: 'LGPD art. 18, VI' });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toEqual({
      status: 'success',
      data: { id: expect.any(String), external_id: c.externalId, notes_deleted: 3, created_at: expect.any(String) },
    });
    for (const id of mine) expect((await call('GET', `/notes/${id}`, clinic.admin)).json().code).toBe('NOTE_NOT_FOUND');
    await expectEventShells(mine);

    // The other clinic's note of the same external id is untouched, and its log does not show ours.
    expect((await call('GET', `/notes/${elsewhere}`, other.viewer)).json().data.external_id).toBe(c.externalId);
    expect((await erasures(other.admin)).meta.total).toBe(0);
    const entry = (await erasures()).data[0];
    expect(entry).toEqual({
      id: erased.json().data.id,
      kind: 'patient',
      note_id: null,
      external_id_hmac: await logDigest(c.externalId),
      notes_deleted: 3,
      key_id: clinic.adminId,
      reason: 'LGPD art. 18, VI',
      created_at: erased.json().data.created_at,
    });

    // Once the other clinic answers its own request too, nothing of the person is left anywhere.
    const theirs = await call('POST', '/erasures', other.admin, { external_id: c.externalId, reason: 'Pedido do titular' });
    expect(theirs.json().data.notes_deleted).toBe(1);
    await expectNothingLeft([...mine, elsewhere], c);
  });

  it('a second erasure deletes nothing more and is logged too', async () => {
    const before = await dumpDatabase(db);
    const again = await call('POST', '/erasures', clinic.admin, { external_id: c.externalId, reason: 'Pedido repetido' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.notes_deleted).toBe(0);
    const log = await erasures(clinic.admin, '?limit=2');
    expect(log.data.map((entry: any) => [entry.kind, entry.notes_deleted, entry.reason])).toEqual([
      ['patient', 0, 'Pedido repetido'],
      ['patient', 3, 'LGPD art. 18, VI'],
    ]);
    expect(log.meta).toEqual({ total: 4, page: 1, limit: 2, total_pages: 2 });
    expect((await erasures(clinic.admin, '?page=2&limit=2')).data.map((entry: any) => entry.kind)).toEqual(['note', 'note']);
    // Only the log grew.
    const after = await dumpDatabase(db);
    expect(after.length).toBeGreaterThan(before.length);
    expect(needles(c).filter((needle) => after.includes(needle))).toEqual([]);
  });

  it('keeps counting the erased notes against the monthly quota', async () => {
    const [erased] = await rowsOf<{ seconds: number }>(
      db,
      sql`select coalesce(sum(quota_seconds), 0)::float8 as seconds from note_erasures where clinic_id = ${clinic.clinicId} and kind = 'patient'`,
    );
    // Three uploads and one retry of the same audio.
    const [one] = await rowsOf<{ seconds: number }>(
      db,
      sql`select audio_duration_seconds::float8 as seconds from notes where clinic_id = ${clinic.clinicId} limit 1`,
    );
    expect(erased!.seconds).toBeCloseTo(one!.seconds * 4, 1);
  });
});
