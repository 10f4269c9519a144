import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSha256 } from '../../src/notes/chain/hash-v1.ts';
import { verifyRecordText } from '../../src/notes/export/verify-file.ts';
import { type SQL, sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { rowsOf } from '../helpers/database.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { runCli } from '../helpers/processes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The hash chain as a third party checks it: a note signed and amended twice is exported, and the
// export verifies with nothing but the file; each field a link covers, changed in the database
// behind the API's back, breaks verification at the link that covered it. Version 1 links (written
// before version 2) still verify, alone and chained to version 2 amendments.

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra Clínica');
const run = (query: SQL) => db.database.db.execute(query);

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
const BRUNO = { name: 'Dr. Bruno Lima', license: 'CRMV-RJ 5432' };
const VITALS = [
  {
    code: 'weight',
    value: 8.5,
    unit: 'kg',
    comparator: null,
    text: 'pesa oito quilos e meio',
    evidence: { start: 5.5, end: 9 },
    flag: null,
  },
  { code: 'temperature', value: 39.4, unit: '°C', comparator: null, text: 'temperatura 39,4', evidence: null, flag: null },
];
const PLAN = {
  medications: [
    {
      id: 'a7e2c1d0-5b3f-4e8a-9c6d-1f2e3d4c5b6a',
      text: 'omeprazol um miligrama por quilo por sete dias',
      evidence: null,
      drug: 'omeprazol',
      dose_value: 1,
      dose_unit: 'mg/kg',
      route: 'oral',
      interval_hours: 24,
      duration_days: 7,
      status: 'prescribed',
      computed_total: { value: 8.5, unit: 'mg' },
    },
  ],
  exams: [],
  vaccines: [],
  follow_ups: [],
};

const call = (method: 'GET' | 'POST', url: string, key: string, payload?: object) =>
  app.inject({ method, url: `/notes/v1${url}`, headers: as(key), ...(payload ? { payload } : {}) });

/** A completed draft of the clinic, with vitals and a plan (the plan extraction is not wired yet: written as it would be). */
async function draft(name = 'Mel'): Promise<{ id: string; sections: { id: string; content: string }[] }> {
  const id = await uploadNote(app, clinic.editor, { name, external_id: 'PAC-42', species: 'canine' });
  expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
  await run(sql`update notes set vitals = ${JSON.stringify(VITALS)}::jsonb, plan = ${JSON.stringify(PLAN)}::jsonb where id = ${id}`);
  const note = (await call('GET', `/notes/${id}`, clinic.viewer)).json().data;
  return { id, sections: note.note_sections };
}

/** A note signed by Ana and amended twice (first by Bruno, then by Ana). */
async function amendedTwice(): Promise<{ id: string; sections: { id: string; content: string }[] }> {
  const note = await draft();
  expect((await call('POST', `/notes/${note.id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(200);
  const [first, second] = note.sections;
  for (const [section, signer, reason] of [
    [first!, BRUNO, 'Relato conferido com a tutora'],
    [second!, ANA, 'Exame revisto'],
  ] as const) {
    const amended = await call('POST', `/notes/${note.id}/amendments`, clinic.editor, {
      section_id: section.id,
      content: `${section.content} (corrigido)`,
      reason,
      signed_by: signer,
    });
    expect(amended.statusCode, amended.body).toBe(201);
  }
  return note;
}

const exportJson = async (id: string, key = clinic.viewer) => {
  const response = await call('GET', `/notes/${id}/export?format=json`, key);
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
};

describe('the hash chain', () => {
  it('exports a signed note amended twice as JSON that verifies offline, every link version 2', async () => {
    const note = await amendedTwice();
    const response = await call('GET', `/notes/${note.id}/export?format=json`, clinic.viewer);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toMatch(/filename="Mel-\d{4}-\d\d-\d\d\.json"/);
    const file = response.json();
    expect(file.notes[0].links.map((link: any) => [link.link, link.hash_version])).toEqual([
      ['signature', 2],
      ['amendment 1', 2],
      ['amendment 2', 2],
    ]);
    expect(file.notes[0].current.plan.medications[0]).not.toHaveProperty('id');
    expect(verifyRecordText(response.body)).toEqual({ notes: 1, links: 3, verified: true });
    const amendments = (await call('GET', `/notes/${note.id}/amendments`, clinic.viewer)).json().data;
    expect(amendments.map((amendment: any) => amendment.hash_version)).toEqual([2, 2]);
    expect((await call('GET', `/notes/${note.id}`, clinic.viewer)).json().data.signature.hash_version).toBe(2);
  });

  // Each tampering, made in the database after the note was amended twice, and the link that must break.
  const tamperings: { what: string; change: (note: { id: string; sections: { id: string }[] }) => SQL; link: string; problem: string }[] = [
    {
      what: "a section's text",
      change: (note) => sql`update note_sections set content = content || ' adulterado' where id = ${note.sections.at(-1)!.id}`,
      link: 'amendment 2',
      problem: 'current_state',
    },
    {
      what: 'a vital',
      change: (note) => sql`update notes set vitals = jsonb_set(vitals, '{0,value}', '9.5') where id = ${note.id}`,
      link: 'amendment 2',
      problem: 'current_state',
    },
    {
      what: 'the plan',
      change: (note) => sql`update notes set plan = jsonb_set(plan, '{medications,0,duration_days}', '30') where id = ${note.id}`,
      link: 'amendment 2',
      problem: 'current_state',
    },
    {
      what: "the patient's name",
      change: (note) => sql`update notes set name = 'Mel Souza' where id = ${note.id}`,
      link: 'amendment 2',
      problem: 'current_state',
    },
    {
      what: "an amendment's reason",
      change: (note) => sql`update note_amendments set reason = 'Outro motivo' where note_id = ${note.id} and position = 1`,
      link: 'amendment 1',
      problem: 'hash',
    },
    {
      what: "an amendment's author",
      change: (note) => sql`update note_amendments set signed_by_name = 'Dr. Outro' where note_id = ${note.id} and position = 1`,
      link: 'amendment 1',
      problem: 'hash',
    },
    {
      what: "an amendment's time",
      change: (note) =>
        sql`update note_amendments set created_at = created_at - interval '1 day' where note_id = ${note.id} and position = 2`,
      link: 'amendment 2',
      problem: 'hash',
    },
    {
      what: 'a previous hash',
      change: (note) => sql`update note_amendments set previous_sha256 = repeat('0', 64) where note_id = ${note.id} and position = 2`,
      link: 'amendment 2',
      problem: 'previous_sha256',
    },
    {
      what: 'what the signature covered',
      change: (note) =>
        sql`update note_signatures set covered_state = jsonb_set(covered_state, '{vitals,1,value}', '40.1') where note_id = ${note.id}`,
      link: 'signature',
      problem: 'hash',
    },
    {
      what: "the signer's licence",
      change: (note) => sql`update note_signatures set signed_by_license = 'CRMV-SP 99999' where note_id = ${note.id}`,
      link: 'signature',
      problem: 'hash',
    },
  ];

  for (const { what, change, link, problem } of tamperings) {
    it(`breaks at ${link} when ${what} is changed in the database`, async () => {
      const note = await amendedTwice();
      expect(verifyRecordText(await exportJson(note.id)).verified).toBe(true);
      await run(change(note));
      const verification = verifyRecordText(await exportJson(note.id));
      expect(verification).toMatchObject({ notes: 1, links: 3, verified: false, broken: { note_id: note.id, link, problem } });
      if (!verification.verified) expect(verification.broken.expected).not.toBe(verification.broken.found);
    });
  }

  it('breaks every later link when an earlier one is rewritten with a hash that matches its new content', async () => {
    const note = await amendedTwice();
    await run(sql`update note_amendments set reason = 'Motivo reescrito' where note_id = ${note.id} and position = 1`);
    // The forger recomputes the first amendment's hash over the new reason: that link holds again…
    const forged = verifyRecordText(await exportJson(note.id));
    if (forged.verified) throw new Error('the changed reason went unnoticed');
    expect(forged.broken).toMatchObject({ link: 'amendment 1', problem: 'hash' });
    await run(sql`update note_amendments set content_sha256 = ${forged.broken.expected} where note_id = ${note.id} and position = 1`);
    // …and the second no longer follows it; pointed at the forged hash, its own hash (computed over the original) fails.
    expect(verifyRecordText(await exportJson(note.id))).toMatchObject({
      verified: false,
      broken: { link: 'amendment 2', problem: 'previous_sha256', expected: forged.broken.expected },
    });
    await run(sql`update note_amendments set previous_sha256 = ${forged.broken.expected} where note_id = ${note.id} and position = 2`);
    expect(verifyRecordText(await exportJson(note.id))).toMatchObject({
      verified: false,
      broken: { link: 'amendment 2', problem: 'hash' },
    });
  });

  it('verifies notes signed and amended under version 1, and a version 2 amendment chained to them', async () => {
    const note = await draft('Bidu');
    const [first, second] = note.sections;
    const sectionsNow = async () =>
      rowsOf<{ label: string; title: string; content: string; order: string; position: number }>(
        db.database.db,
        sql`select label, title, content, "order", position from note_sections where note_id = ${note.id}`,
      );
    // Written as the service wrote them before version 2: the hash over the sections and the original signature.
    const signedAt = '2026-11-28T14:05:09Z';
    const signatureHash = contentSha256({ noteId: note.id, sections: await sectionsNow(), signedBy: ANA, signedAt });
    await run(sql`insert into note_signatures (note_id, signed_by_name, signed_by_license, signed_at, key_id, flags_acknowledged, open_flags, content_sha256)
      values (${note.id}, ${ANA.name}, ${ANA.license}, ${signedAt}, ${clinic.editorId}, false, 0, ${signatureHash})`);
    await run(sql`update notes set record_status = 'amended' where id = ${note.id}`);
    await run(sql`update note_sections set content = 'Texto corrigido em versão 1' where id = ${first!.id}`);
    const amendmentHash = contentSha256({ noteId: note.id, sections: await sectionsNow(), signedBy: ANA, signedAt });
    await run(sql`insert into note_amendments (note_id, position, section_id, label, previous_content, content, reason, signed_by_name, signed_by_license, key_id, content_sha256, previous_sha256, created_at)
      select ${note.id}, 1, id, label, ${first!.content}, content, 'Corrigido', ${BRUNO.name}, ${BRUNO.license}, ${clinic.editorId}, ${amendmentHash}, ${signatureHash}, '2026-11-29T10:00:00Z'
      from note_sections where id = ${first!.id}`);
    const fetched = (await call('GET', `/notes/${note.id}`, clinic.viewer)).json().data;
    expect(fetched.signature).toMatchObject({ content_sha256: signatureHash, hash_version: 1 });
    expect(verifyRecordText(await exportJson(note.id))).toEqual({ notes: 1, links: 2, verified: true });

    const amended = await call('POST', `/notes/${note.id}/amendments`, clinic.editor, {
      section_id: second!.id,
      content: 'Agora em versão 2',
      reason: 'Nova correção',
      signed_by: ANA,
    });
    expect(amended.statusCode, amended.body).toBe(201);
    expect(amended.json().data).toMatchObject({ hash_version: 2, previous_sha256: amendmentHash });
    const amendments = (await call('GET', `/notes/${note.id}/amendments`, clinic.viewer)).json().data;
    expect(amendments.map((amendment: any) => amendment.hash_version)).toEqual([1, 2]);
    expect(verifyRecordText(await exportJson(note.id))).toEqual({ notes: 1, links: 3, verified: true });
    const fhir = await call('GET', `/notes/${note.id}/export?format=fhir`, clinic.viewer);
    expect(verifyRecordText(fhir.body)).toEqual({ notes: 1, links: 3, verified: true });

    // A version 1 link covered the sections after it: the text the first amendment replaced is what the signature covered.
    await run(sql`update note_amendments set previous_content = 'Outro texto' where note_id = ${note.id} and position = 1`);
    expect(verifyRecordText(await exportJson(note.id))).toMatchObject({ verified: false, broken: { link: 'signature', problem: 'hash' } });
  });

  it("covers the plan an amendment re-reads: the amendment's link holds the new medication, the signature's not", async () => {
    const id = await uploadNote(app, clinic.editor, { name: 'Thor', species: 'canine' });
    expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
    const [section] = (await call('GET', `/notes/${id}`, clinic.viewer)).json().data.note_sections;
    expect((await call('POST', `/notes/${id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true })).statusCode).toBe(200);
    const amended = await call('POST', `/notes/${id}/amendments`, clinic.editor, {
      section_id: section.id,
      content: `${section.content} Vou prescrever meloxicam 0,1 mg/kg por via oral a cada 24 horas por cinco dias.`,
      reason: 'Prescrição esquecida',
      signed_by: ANA,
    });
    expect(amended.statusCode, amended.body).toBe(201);
    const file = JSON.parse(await exportJson(id));
    const drugs = (link: any) => (link.covered.plan?.medications ?? []).map((item: any) => item.drug);
    const [signature, amendment] = file.notes[0].links;
    expect(drugs(signature)).not.toContain('meloxicam');
    expect(drugs(amendment)).toContain('meloxicam');
    expect(file.notes[0].current.plan).toEqual(amendment.covered.plan);
    expect(verifyRecordText(JSON.stringify(file))).toEqual({ notes: 1, links: 2, verified: true });
    await run(sql`update notes set plan = jsonb_set(plan, '{medications}', '[]') where id = ${id}`);
    expect(verifyRecordText(await exportJson(id))).toMatchObject({
      verified: false,
      broken: { link: 'amendment 1', problem: 'current_state' },
    });
  });

  it('exports a draft with no links, and refuses another clinic its note', async () => {
    const note = await draft('Rascunho');
    expect(verifyRecordText(await exportJson(note.id))).toEqual({ notes: 1, links: 0, verified: true });
    const foreign = await call('GET', `/notes/${note.id}/export?format=json`, other.viewer);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('FORBIDDEN_TENANT');
  });
});

describe('record verify FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'record-verify-'));
  // No database and no configuration: the command must not need them.
  const env = { PATH: process.env.PATH ?? '' };

  it('says verified for an untouched JSON export, and names the amendment whose reason was changed in the file', async () => {
    const note = await amendedTwice();
    const text = await exportJson(note.id);
    const file = path.join(dir, 'record.json');
    writeFileSync(file, text);
    const ok = await runCli(['record', 'verify', file], env);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ notes: 1, links: 3, verified: true });

    const changed = JSON.parse(text);
    changed.notes[0].links[2].reason = 'Motivo trocado no arquivo';
    writeFileSync(file, JSON.stringify(changed));
    const broken = await runCli(['record', 'verify', file], env);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({
      notes: 1,
      links: 3,
      verified: false,
      broken: { note_id: note.id, link: 'amendment 2', problem: 'hash' },
    });
    expect(broken.stderr).toContain(`note ${note.id}, amendment 2`);
  });

  it('refuses a file it cannot read, one that is not JSON, and one that is no record export, with one line', async () => {
    const notJson = path.join(dir, 'not.json');
    writeFileSync(notJson, 'isto não é JSON');
    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ hello: 'world' }));
    for (const [file, message] of [
      [path.join(dir, 'missing.json'), 'cannot read'],
      [notJson, 'not JSON'],
      [other, 'not a vetflow JSON record export'],
    ] as const) {
      const result = await runCli(['record', 'verify', file], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
    }
    expect((await runCli(['record', 'verify'], env)).stderr).toContain('usage: record verify FILE');
  });
});
