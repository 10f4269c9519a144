import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { insertNote } from '../../src/notes/store/notes.repo.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { fixture, uploadNote, waitUntilSettled } from '../helpers/uploads.ts';
import { chatCompletion, json, startFakeServer } from '../providers/fake-openai-server.ts';
import { registerWebhook, startReceiver } from './webhooks-receiver.ts';

// The clinical record end to end, as a new user meets it: a clinical draft with a review flag is
// reviewed (the audio of a section's evidence fetched by byte range), signed with the
// acknowledgement, amended, and its history, exports, webhooks and hash tell the whole story.

const SEGMENTS = [
  { start: 0, end: 5.5, text: 'A Mel tá vomitando desde anteontem, doutora, umas quatro vezes por dia.' },
  { start: 5.5, end: 9, text: 'Ela pesa oito quilos e meio.' },
  { start: 9, end: 13, text: 'Temperatura trinta e nove e quatro, abdômen dolorido na palpação.' },
  { start: 13, end: 19.5, text: 'Vou passar omeprazol um miligrama por quilo uma vez ao dia por sete dias.' },
  { start: 19.5, end: 23.7, text: 'Retorno em cinco dias se não melhorar.' },
];
const TRANSCRIPT = { text: SEGMENTS.map((segment) => segment.text).join(' '), language: 'portuguese', duration: 23.7, segments: SEGMENTS };
// The model invents a dose (2 mg/kg): the sentence is removed and flagged for review.
const DRAFT = {
  sections: [
    { label: 'anamnesis', sentences: [{ text: 'Tutora relata vômitos desde anteontem, cerca de 4 vezes ao dia.', segments: [1] }] },
    { label: 'physical_exam', sentences: [{ text: 'Peso 8,5 kg. T 39,4 °C; dor abdominal à palpação.', segments: [2, 3] }] },
    {
      label: 'treatment',
      sentences: [
        { text: 'Omeprazol 2 mg/kg a cada 24 h por 7 dias.', segments: [4] },
        { text: 'Omeprazol a cada 24 h por 7 dias.', segments: [4] },
      ],
    },
    { label: 'follow_up', sentences: [{ text: 'Retorno em 5 dias se não houver melhora.', segments: [5] }] },
  ],
};

const remote = await startFakeServer();
afterAll(() => remote.close());
remote.handle((request, response) =>
  request.path.endsWith('/audio/transcriptions') ? json(response, 200, TRANSCRIPT) : json(response, 200, chatCompletion(DRAFT)),
);

const { app, db } = await createTestApp({
  startWorkers: true,
  env: {
    NOTE_STYLE: 'clinical',
    TRANSCRIPTION_PROVIDER: 'openai',
    TRANSCRIPTION_BASE_URL: remote.baseUrl,
    DRAFTING_PROVIDER: 'openai',
    DRAFTING_BASE_URL: remote.baseUrl,
    DRAFTING_MODEL: 'test-model',
  },
});
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra');
const receiver = await startReceiver();
const hook = await registerWebhook(app, clinic.admin, receiver.url, ['note.signed', 'note.amended']);

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
const BRUNO = { name: 'Dr. Bruno Lima', license: 'CRMV-RJ 5432' };

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, key: string, payload?: object, headers: Record<string, string> = {}) =>
  app.inject({ method, url: `/notes/v1${url}`, headers: { 'x-api-key': key, ...headers }, ...(payload ? { payload } : {}) });
const fetchNote = async (id: string) => (await call('GET', `/notes/${id}`, clinic.viewer)).json().data;
const historyOf = async (id: string) => (await call('GET', `/notes/${id}/history`, clinic.viewer)).json().data as any[];

/**
 * The documented canonical form recomputed here without the service's code or library: RFC 8785
 * for an object whose values are all strings is its keys sorted by UTF-16 code units, no
 * whitespace, strings as JSON.stringify writes them.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
/** A link as the hash covers it: its signer and time, and on an amendment its reason and the link before. */
interface LinkFields {
  signed_by: object;
  signed_at: string;
  reason?: string;
  previous_sha256?: string;
}
const withoutHandles = ({ id: _id, evidence: _evidence, ...decided }: Record<string, unknown>) => decided;
/** The version 2 hash of a link over the note as fetched (docs/notes-record.md, "The hash chain"). */
function expectedHash(note: any, link: LinkFields): string {
  const sections = [...note.note_sections]
    .sort((a, b) => Number(a.order) - Number(b.order))
    .map((section) => ({ label: section.label, title: section.title, content: section.content, order: section.order }));
  const plan = note.plan
    ? Object.fromEntries(
        Object.entries(note.plan as Record<string, Record<string, unknown>[]>).map(([list, items]) => [list, items.map(withoutHandles)]),
      )
    : null;
  const canonical = canonicalJson({
    hash_version: 2,
    note_id: note.id,
    patient: { name: note.name, external_id: note.external_id, species: note.species },
    sections,
    vitals: note.vitals.map(withoutHandles),
    plan,
    ...link,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
const amendmentLink = (amendment: any): LinkFields => ({
  signed_by: amendment.signed_by,
  signed_at: amendment.created_at,
  reason: amendment.reason,
  previous_sha256: amendment.previous_sha256,
});

async function clinicalDraft(name: string): Promise<any> {
  const id = await uploadNote(app, clinic.editor, { name }, 'consultation.m4a');
  expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
  return fetchNote(id);
}

/** A completed note with one section, written straight into the store (no processing to wait for). */
async function pendingNote(): Promise<string> {
  const note = await insertNote(
    {
      clinicId: clinic.clinicId,
      name: 'Pendente',
      audioKey: 'nowhere.mp3',
      audioFormat: 'mp3',
      audioBytes: 1,
      audioSha256: '0'.repeat(64),
      audioDurationSeconds: 30,
    },
    db.database.db,
  );
  return note.id;
}

describe('the clinical record, end to end', () => {
  it('a flagged clinical draft is heard, signed with the acknowledgement, amended twice; history, exports, webhooks and hashes agree', {
    timeout: 60_000,
  }, async () => {
    const draft = await clinicalDraft('Mel');
    expect(draft).toMatchObject({ record_status: 'draft', signature: null, note_style: 'clinical' });
    expect(draft.review_flags).toHaveLength(1);
    const listed = (await call('GET', '/notes?name=Mel', clinic.viewer)).json().data[0];
    expect(listed.record_status).toBe('draft');
    expect(listed).not.toHaveProperty('signature');

    // Review: the treatment's evidence (13 s - 19.5 s of 23.7 s), fetched as the bytes an <audio> element would ask.
    const treatment = draft.note_sections.find((section: any) => section.label === 'treatment');
    expect(treatment.evidence).toEqual([{ start: 13, end: 19.5 }]);
    const audio = fixture('consultation.m4a');
    const from = Math.floor((13 / 23.7) * audio.length);
    const to = Math.floor((19.5 / 23.7) * audio.length);
    const heard = await call('GET', `/notes/${draft.id}/audio`, clinic.viewer, undefined, {
      range: `bytes=${from}-${to}`,
      'x-request-id': 'review-audio',
    });
    expect(heard.statusCode).toBe(206);
    expect(heard.headers['content-range']).toBe(`bytes ${from}-${to}/${audio.length}`);
    expect(heard.headers['content-type']).toBe('audio/mp4');
    expect(heard.rawPayload.equals(audio.subarray(from, to + 1))).toBe(true);

    const draftTxt = (await call('GET', `/notes/${draft.id}/export`, clinic.viewer)).body;
    expect(draftTxt).toContain('Rascunho — não assinado');
    expect(draftTxt).not.toContain('Assinado por');

    // Sign: refused while the flag is open, by a viewer, and then accepted with the acknowledgement.
    const refused = await call('POST', `/notes/${draft.id}/sign`, clinic.editor, { signed_by: ANA });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'REVIEW_FLAGS_OPEN', details: { flags: 1 } });
    const byViewer = await call('POST', `/notes/${draft.id}/sign`, clinic.viewer, { signed_by: ANA, acknowledge_flags: true });
    expect(byViewer.json().code).toBe('INSUFFICIENT_PERMISSIONS');
    const signed = await call(
      'POST',
      `/notes/${draft.id}/sign`,
      clinic.editor,
      { signed_by: ANA, acknowledge_flags: true },
      { 'x-request-id': 'sign-1' },
    );
    expect(signed.statusCode, signed.body).toBe(200);
    const signedNote = signed.json().data;
    expect(signedNote.record_status).toBe('signed');
    expect(signedNote.signature).toEqual({
      signed_by: ANA,
      signed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      key_id: clinic.editorId,
      flags_acknowledged: true,
      content_sha256: expectedHash(draft, { signed_by: ANA, signed_at: signedNote.signature.signed_at }),
      hash_version: 2,
    });
    const signature = signedNote.signature;
    expect(await fetchNote(draft.id)).toEqual(signedNote);
    const again = await call('POST', `/notes/${draft.id}/sign`, clinic.editor, { signed_by: BRUNO, acknowledge_flags: true });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('NOTE_SIGNED');

    // Locked: the edit is refused and leaves nothing in the history.
    const eventsBefore = (await historyOf(draft.id)).length;
    const edit = await app.inject({
      method: 'PATCH',
      url: `/notes/v1/note_sections?section_id=${treatment.id}`,
      headers: { 'x-api-key': clinic.editor },
      payload: { title: 'Tratamento', content: 'Mudado depois', order: treatment.order },
    });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().code).toBe('NOTE_SIGNED');
    expect((await historyOf(draft.id)).length).toBe(eventsBefore);

    // Amend twice: the chain links each amendment to the link before it.
    const firstText = 'Omeprazol 1 mg/kg a cada 24 h por 7 dias.';
    const first = await call(
      'POST',
      `/notes/${draft.id}/amendments`,
      clinic.editor,
      {
        section_id: treatment.id,
        content: firstText,
        reason: 'Dose conferida na gravação: 1 mg/kg',
        signed_by: ANA,
      },
      { 'x-request-id': 'amend-1' },
    );
    expect(first.statusCode, first.body).toBe(201);
    const firstAmendment = first.json().data;
    const afterFirst = await fetchNote(draft.id);
    expect(afterFirst.record_status).toBe('amended');
    expect(afterFirst.signature).toEqual(signature);
    expect(afterFirst.note_sections.find((section: any) => section.id === treatment.id).content).toBe(firstText);
    expect(firstAmendment).toEqual({
      id: expect.any(String),
      note_id: draft.id,
      section_id: treatment.id,
      label: 'treatment',
      previous_content: treatment.content,
      content: firstText,
      reason: 'Dose conferida na gravação: 1 mg/kg',
      signed_by: ANA,
      created_at: expect.stringMatching(/Z$/),
      content_sha256: expectedHash(afterFirst, {
        signed_by: ANA,
        signed_at: firstAmendment.created_at,
        reason: 'Dose conferida na gravação: 1 mg/kg',
        previous_sha256: signature.content_sha256,
      }),
      previous_sha256: signature.content_sha256,
      hash_version: 2,
    });
    // A section changed, so the hash did.
    expect(firstAmendment.content_sha256).not.toBe(signature.content_sha256);

    const secondText = `${firstText} Dieta leve por 3 dias.`;
    const second = await call('POST', `/notes/${draft.id}/amendments`, clinic.admin, {
      section_id: treatment.id,
      content: secondText,
      reason: 'Acrescentada a dieta',
      signed_by: BRUNO,
    });
    expect(second.statusCode).toBe(201);
    const secondAmendment = second.json().data;
    const afterSecond = await fetchNote(draft.id);
    expect(secondAmendment.previous_sha256).toBe(firstAmendment.content_sha256);
    expect(secondAmendment.previous_content).toBe(firstText);
    expect(secondAmendment.content_sha256).toBe(expectedHash(afterSecond, amendmentLink(secondAmendment)));
    expect(secondAmendment.hash_version).toBe(2);
    const amendments = (await call('GET', `/notes/${draft.id}/amendments`, clinic.viewer)).json();
    expect(amendments).toEqual({ status: 'success', data: [firstAmendment, secondAmendment] });

    // Exports tell the story: the signature, the amendments and the hash of the note as it stands.
    const txt = (await call('GET', `/notes/${draft.id}/export?format=txt`, clinic.viewer, undefined, { 'x-request-id': 'export-txt' }))
      .body;
    expect(txt).not.toContain('Rascunho');
    expect(txt).toContain(`Tratamento\n----------\n${secondText}`);
    expect(txt).toContain('Adendo 1 — Tratamento\n');
    expect(txt).toContain('Motivo: Dose conferida na gravação: 1 mg/kg');
    expect(txt).toMatch(/Por: Dr\. Bruno Lima — CRMV-RJ 5432 em \d\d\/\d\d\/\d{4} \d\d:\d\d UTC/);
    expect(txt).toMatch(/Assinado por Dra\. Ana Souza — CRMV-SP 12345 em \d\d\/\d\d\/\d{4} \d\d:\d\d UTC/);
    expect(txt).toContain(`SHA-256 na assinatura: ${signature.content_sha256}`);
    expect(txt).toContain(`${secondAmendment.content_sha256}`);
    const rtf = (await call('GET', `/notes/${draft.id}/export?format=rtf`, clinic.viewer)).body;
    expect(rtf).toContain('Adendo 2');
    expect(rtf).toContain(secondAmendment.content_sha256);

    // Webhooks: note.signed and one note.amended per amendment, signed like every event.
    const delivered = await eventually(async () => {
      const mine = receiver.received.filter((entry) => JSON.parse(entry.body).data.note_id === draft.id);
      return mine.length >= 3 ? mine : undefined;
    }, 20_000);
    const events = delivered.map((entry) => new Webhook(hook.secret).verify(entry.body, entry.headers as Record<string, string>) as any);
    expect(events.map((event) => event.type).sort()).toEqual(['note.amended', 'note.amended', 'note.signed']);
    const signedEvent = events.find((event) => event.type === 'note.signed');
    expect(signedEvent.data).toMatchObject({ note_id: draft.id, record_status: 'signed', signature });
    const amendedEvents = events.filter((event) => event.type === 'note.amended');
    expect(amendedEvents.map((event) => event.data.amendment.id).sort()).toEqual([firstAmendment.id, secondAmendment.id].sort());
    for (const event of amendedEvents) expect(event.data.record_status).toBe('amended');

    // History: every write and read, with keys, request ids and the signers; worker events keyless.
    const history = await historyOf(draft.id);
    expect(history.map((event) => event.event)).toEqual([
      'created',
      'completed',
      'audio_fetched',
      'exported',
      'signed',
      'amended',
      'amended',
      'exported',
      'exported',
    ]);
    const [created, completed, fetched, , signedEvt, amended1, amended2, exportedTxt] = history;
    expect(created).toMatchObject({ key_id: clinic.editorId, key_name: 'editor', request_id: expect.any(String) });
    expect(completed).toMatchObject({
      key_id: null,
      key_name: null,
      request_id: null,
      details: { note_style: 'clinical', review_flags: 1 },
    });
    expect(fetched).toMatchObject({
      key_id: clinic.viewerId,
      key_name: 'viewer',
      request_id: 'review-audio',
      details: { range: `bytes=${from}-${to}` },
    });
    expect(signedEvt).toMatchObject({
      key_id: clinic.editorId,
      request_id: 'sign-1',
      details: { signed_by: ANA, flags_acknowledged: true, open_flags: 1, content_sha256: signature.content_sha256 },
    });
    expect(amended1).toMatchObject({ request_id: 'amend-1', details: { signed_by: ANA, amendment_id: firstAmendment.id } });
    expect(amended2).toMatchObject({
      key_id: clinic.adminId,
      details: { signed_by: BRUNO, previous_sha256: firstAmendment.content_sha256 },
    });
    expect(exportedTxt).toMatchObject({ request_id: 'export-txt', details: { format: 'txt' } });
    for (const event of history) expect(event.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Reads never carry transcript text.
    for (const event of history.filter((entry) => ['exported', 'audio_fetched'].includes(entry.event))) {
      expect(JSON.stringify(event.details)).not.toContain('Omeprazol');
    }
  });

  it('an amendment re-reads the vitals its words changed: the note, the exports and note.amended show the new values, flagged', {
    timeout: 60_000,
  }, async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Vitais', species: 'canine' }, 'consultation.m4a');
    expect(await waitUntilSettled(app, clinic.viewer, id, 30_000)).toBe('completed');
    const draft = await fetchNote(id);
    const exam = draft.note_sections.find((section: any) => section.label === 'physical_exam');
    const weight = {
      code: 'weight',
      value: 8.5,
      unit: 'kg',
      comparator: null,
      text: 'pesa oito quilos e meio',
      evidence: { start: 5.5, end: 9 },
      flag: null,
    };
    expect(draft.vitals).toEqual([
      {
        code: 'temperature',
        value: 39.4,
        unit: '°C',
        comparator: null,
        text: 'Temperatura trinta e nove e quatro',
        evidence: { start: 9, end: 13 },
        flag: 'high',
      },
      weight,
    ]);
    expect((await call('POST', `/notes/${id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(200);

    const content = 'Peso 8,5 kg. FC 260 bpm, temperatura 41,5 °C; dor abdominal à palpação.';
    const amended = await call('POST', `/notes/${id}/amendments`, clinic.editor, {
      section_id: exam.id,
      content,
      reason: 'Parâmetros conferidos no prontuário',
      signed_by: ANA,
    });
    expect(amended.statusCode, amended.body).toBe(201);
    const amendment = amended.json().data;

    // The old temperature is gone; the new values are read from the amended words (no audio said
    // them, so no evidence) and flagged against the dog's ranges; the untouched weight keeps its evidence.
    const expected = [
      { code: 'temperature', value: 41.5, unit: '°C', comparator: null, text: 'temperatura 41,5 °C', evidence: null, flag: 'high' },
      weight,
      { code: 'heart_rate', value: 260, unit: 'bpm', comparator: null, text: 'FC 260 bpm', evidence: null, flag: 'high' },
    ];
    const note = await fetchNote(id);
    expect(note.vitals).toEqual(expected);
    // The amendment's link covers the note as fetched, the vitals it re-read included.
    expect(amendment.content_sha256).toBe(expectedHash(note, amendmentLink(amendment)));

    // The "Sinais vitais" block; the old words stay only in the amendment block, as the text it replaced.
    const txt = (await call('GET', `/notes/${id}/export?format=txt`, clinic.viewer)).body;
    expect(txt).toContain(
      'Sinais vitais\n-------------\n- Temperatura: 41,5 °C [ALTO]\n- Peso: 8,5 kg\n- Frequência cardíaca: 260 bpm [ALTO]\n\n',
    );
    expect(txt).not.toContain('Temperatura: 39,4');
    // RTF writes a character outside ASCII as \uN and a fallback ("\u176?C", "Frequ\u234encia"): read back as the character.
    const rtf = (await call('GET', `/notes/${id}/export?format=rtf`, clinic.viewer)).body.replace(/\\u(\d+)./g, (_, code) =>
      String.fromCharCode(Number(code)),
    );
    expect(rtf).toContain('- Temperatura: 41,5 °C [ALTO]');
    expect(rtf).toContain('- Frequência cardíaca: 260 bpm [ALTO]');
    expect(rtf).not.toContain('Temperatura: 39,4');

    const [event] = await eventually(async () => {
      const mine = receiver.ofType('note.amended').filter((entry) => JSON.parse(entry.body).data.note_id === id);
      return mine.length > 0 ? mine : undefined;
    }, 20_000);
    const payload = (new Webhook(hook.secret).verify(event!.body, event!.headers as Record<string, string>) as any).data;
    expect(payload.amendment.id).toBe(amendment.id);
    expect(payload.vitals).toEqual(expected);
  });

  it('refuses every write on a signed note with 409 NOTE_SIGNED, writing nothing', async () => {
    const note = await clinicalDraft('Travada');
    const section = note.note_sections[0];
    expect((await call('POST', `/notes/${note.id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(200);
    const before = await historyOf(note.id);
    const attempts = [
      call('POST', `/notes/${note.id}/retry`, clinic.editor),
      call('POST', '/transcripts/retry', clinic.editor, { note_id: note.id }),
      call('POST', `/notes/${note.id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true }),
      app.inject({
        method: 'PATCH',
        url: `/notes/v1/note_sections?section_id=${section.id}`,
        headers: { 'x-api-key': clinic.editor },
        payload: { title: 'x', content: 'y', order: '1' },
      }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode, response.body).toBe(409);
      expect(response.json().code).toBe('NOTE_SIGNED');
    }
    expect(await historyOf(note.id)).toEqual(before);
    expect((await fetchNote(note.id)).note_sections).toEqual(note.note_sections);
  });

  it('a signature and a section edit racing each other never both win', async () => {
    const note = await clinicalDraft('Corrida');
    const section = note.note_sections[0];
    const [edit, sign] = await Promise.all([
      app.inject({
        method: 'PATCH',
        url: `/notes/v1/note_sections?section_id=${section.id}`,
        headers: { 'x-api-key': clinic.editor },
        payload: { title: section.title, content: 'Texto da corrida', order: section.order },
      }),
      call('POST', `/notes/${note.id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true }),
    ]);
    expect(sign.statusCode).toBe(200);
    expect([200, 409]).toContain(edit.statusCode);
    // Whichever came first, the signature covers exactly what the note shows.
    const now = await fetchNote(note.id);
    expect(now.signature.content_sha256).toBe(
      expectedHash(now, { signed_by: now.signature.signed_by, signed_at: now.signature.signed_at }),
    );
    expect(now.note_sections[0].content === 'Texto da corrida').toBe(edit.statusCode === 200);
  });

  it('states its refusals: not completed, not signed, a section of another note, bad bodies, other clinics', async () => {
    const pending = await pendingNote();
    const notCompleted = await call('POST', `/notes/${pending}/sign`, clinic.editor, { signed_by: ANA });
    expect(notCompleted.statusCode).toBe(422);
    expect(notCompleted.json().code).toBe('NOTE_NOT_COMPLETED');
    expect((await call('GET', `/notes/${pending}/amendments`, clinic.viewer)).json()).toEqual({ status: 'success', data: [] });

    const draft = await clinicalDraft('Rascunho');
    const section = draft.note_sections[0];
    const amendment = { section_id: section.id, content: 'Novo', reason: 'Correção', signed_by: ANA };
    const notSigned = await call('POST', `/notes/${draft.id}/amendments`, clinic.editor, amendment);
    expect(notSigned.statusCode).toBe(409);
    expect(notSigned.json().code).toBe('NOTE_NOT_SIGNED');

    const signed = await clinicalDraft('Assinada');
    expect((await call('POST', `/notes/${signed.id}/sign`, clinic.admin, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(
      200,
    );
    const foreignSection = await call('POST', `/notes/${signed.id}/amendments`, clinic.editor, amendment);
    expect(foreignSection.statusCode).toBe(404);
    expect(foreignSection.json().code).toBe('SECTION_NOT_FOUND');
    const byViewer = await call('POST', `/notes/${signed.id}/amendments`, clinic.viewer, amendment);
    expect(byViewer.statusCode).toBe(403);
    expect(byViewer.json().code).toBe('INSUFFICIENT_PERMISSIONS');

    for (const [body, field] of [
      [{ signed_by: { name: '', license: 'CRMV-SP 1' } }, 'signed_by.name'],
      [{ signed_by: { name: 'a'.repeat(201), license: 'CRMV-SP 1' } }, 'signed_by.name'],
      [{ signed_by: { name: 'Ana', license: 'x'.repeat(51) } }, 'signed_by.license'],
      [{ signed_by: ANA, acknowledge_flags: 'yes' }, 'acknowledge_flags'],
    ] as const) {
      const response = await call('POST', `/notes/${draft.id}/sign`, clinic.editor, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json().details.field).toBe(field);
    }
    for (const [body, field] of [
      [{ ...amendment, section_id: signed.note_sections[0].id, content: '' }, 'content'],
      [{ ...amendment, section_id: signed.note_sections[0].id, content: 'x'.repeat(20_001) }, 'content'],
      [{ ...amendment, section_id: signed.note_sections[0].id, reason: 'x'.repeat(501) }, 'reason'],
    ] as const) {
      const response = await call('POST', `/notes/${signed.id}/amendments`, clinic.editor, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json().details.field).toBe(field);
    }

    const badId = await call('POST', `/notes/${signed.id}/amendments`, clinic.editor, { ...amendment, section_id: 'not-a-uuid' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ code: 'INVALID_SECTION_ID', details: { field: 'section_id' } });

    const signedSection = signed.note_sections[0].id;
    for (const [method, url, payload] of [
      ['POST', `/notes/${signed.id}/sign`, { signed_by: ANA, acknowledge_flags: true }],
      ['POST', `/notes/${signed.id}/amendments`, { ...amendment, section_id: signedSection }],
      ['GET', `/notes/${signed.id}/amendments`, undefined],
      ['GET', `/notes/${signed.id}/history`, undefined],
      ['GET', `/notes/${signed.id}/audio`, undefined],
    ] as const) {
      const response = await call(method, url, other.admin, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN_TENANT');
    }
    expect((await fetchNote(signed.id)).record_status).toBe('signed');
  });
});
