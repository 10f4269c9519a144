import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { createClinicWithKeys } from '../helpers/notes.ts';
import { ROOT } from '../helpers/processes.ts';
import { fixture } from '../helpers/uploads.ts';

// What an integrator does first: generate a typed client from each served document and code against
// it. openapi-typescript writes the types; the TypeScript compiler checks calls written the way an
// ERP developer would (by operationId), and refuses calls that break the contract. Then a client
// built the way openapi-fetch's documentation says (its types from openapi-typescript) uploads a
// note, edits a section and upserts a contact against a listening server.

const t = await createTestApp({ startWorkers: true, env: CRM_TEST_ENV });
const { app } = t;
// Inside the project (build/ is ignored), so a generated client file resolves openapi-fetch as an integrator's would.
mkdirSync(path.join(ROOT, 'build'), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, 'build', 'vetflow-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tsc = path.resolve('node_modules/.bin/tsc');
const run = promisify(execFile);

const documents: Record<'notes' | 'flow', any> = {
  notes: (await app.inject({ method: 'GET', url: '/notes/v1/openapi.json' })).json(),
  flow: (await app.inject({ method: 'GET', url: '/flow/v1/openapi.json' })).json(),
};
// File parts (`format: binary`) as Blob, as openapi-typescript's documentation advises for uploads.
const binaryAsBlob = (schema: { format?: string }) => (schema.format === 'binary' ? 'Blob' : undefined);
for (const [name, document] of Object.entries(documents))
  writeFileSync(path.join(dir, `${name}.ts`), await openapiTS(document, { transform: binaryAsBlob }));

const operationsOf = (document: any) =>
  Object.entries<Record<string, any>>(document.paths).flatMap(([route, item]) =>
    Object.entries<any>(item).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${route}`, operation })),
  );

// The shapes a generated client hands out: request bodies and JSON responses by status.
const HELPERS = `
import type { operations as Notes } from './notes.ts';
import type { operations as Crm } from './flow.ts';
type Body<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type Answer<Op, S extends number> = Op extends { responses: { [K in S]: { content: { 'application/json': infer B } } } } ? B : never;
`;

async function typeCheck(file: string, source: string): Promise<string[]> {
  writeFileSync(path.join(dir, file), `${HELPERS}\n${source}`);
  // --ignoreConfig: the files live under the project, whose tsconfig.json is not theirs.
  const args = [
    '--ignoreConfig',
    '--noEmit',
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--allowImportingTsExtensions',
    path.join(dir, file),
  ];
  try {
    await run(tsc, args, { cwd: dir });
    return [];
  } catch (error) {
    return String((error as { stdout?: string }).stdout)
      .split('\n')
      .filter((line) => line.includes('error TS'));
  }
}

describe('a typed client generated from each served document', () => {
  it.each(Object.keys(documents))('%s: every operation has a unique, readable operationId and declares its security', (name) => {
    const operations = operationsOf(documents[name as 'notes']);
    expect(operations.length).toBeGreaterThan(5);
    const ids = operations.map(({ operation }) => operation.operationId);
    for (const [index, { label }] of operations.entries()) expect(ids[index], label).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { label, operation } of operations) expect(Array.isArray(operation.security), label).toBe(true);
    expect(documents[name as 'notes'].info.license).toMatchObject({ name: 'MIT' });
  });

  it("documents each route's security as its declared access demands", () => {
    const schemeOf = (access: unknown): string | null => {
      if (access === 'public') return null;
      const kind = Object.keys(access as object);
      if (kind.includes('notesPermission')) return 'NotesApiKey';
      if (kind.includes('crmScope')) return 'CrmBearer';
      if (kind.includes('crmSessionRole')) return 'CrmSession';
      throw new Error(`unknown access ${JSON.stringify(access)}`);
    };
    // Logout is public (always 204) but reads the session cookie when there is one.
    const optionalSession = new Set(['POST /flow/v1/api/auth/logout']);
    let checked = 0;
    for (const route of app.vetflow.routes) {
      const prefix = ['/notes/v1', '/flow/v1'].find((candidate) => route.url.startsWith(`${candidate}/`));
      const document = prefix === '/notes/v1' ? documents.notes : documents.flow;
      const operation = prefix
        ? document.paths[route.url.slice(prefix.length).replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]
        : undefined;
      if (!operation) continue;
      const label = `${route.method} ${route.url}`;
      const scheme = schemeOf(route.access);
      if (optionalSession.has(label)) expect(operation.security, label).toEqual([{ CrmSession: [] }]);
      else expect(operation.security, label).toEqual(scheme ? [{ [scheme]: [] }] : []);
      checked++;
    }
    expect(checked).toBe(operationsOf(documents.notes).length + operationsOf(documents.flow).length);
  });

  it('gives each document only the components its own operations use', () => {
    const notesSchemas = Object.keys(documents.notes.components.schemas);
    const crmSchemas = Object.keys(documents.flow.components.schemas);
    expect(notesSchemas).toContain('Note');
    expect(notesSchemas).not.toContain('Contact');
    expect(crmSchemas).toContain('Contact');
    expect(crmSchemas).not.toContain('Note');
    for (const [name, document] of Object.entries(documents)) {
      const text = JSON.stringify({ paths: document.paths, schemas: document.components.schemas });
      for (const schema of Object.keys(document.components.schemas))
        expect(text, `${name}: ${schema}`).toContain(`"#/components/schemas/${schema}"`);
    }
  });

  it('documents the possible codes of each error status as an enum', () => {
    const upsert = documents.flow.paths['/external/workspaces/{workspace_id}/contacts'].put;
    const conflict = documents.flow.components.schemas[upsert.responses['409'].content['application/json'].schema.$ref.split('/').pop()];
    expect(conflict.properties.code.enum).toEqual(expect.arrayContaining(['DUPLICATE_PHONE', 'DUPLICATE_EXTERNAL_ID']));
    expect(conflict.properties.code.enum).not.toContain('NOTE_NOT_FOUND');
    expect(documents.flow.paths['/api/auth/login'].post.security).toEqual([]);
  });

  it('type-checks calls written against the contract', async () => {
    const errors = await typeCheck(
      'calls.ts',
      `
export const upsert: Body<Crm['upsertContact']> = { name: 'Thor', phone: '+55 11 98765-4321', external_id: 'ERP-1' };
export function onUpserted(result: Answer<Crm['upsertContact'], 200>): string {
  return result.action === 'created' ? result.contact.id : result.matched_by ?? 'none';
}
export function onConflict(error: Answer<Crm['upsertContact'], 409>): boolean {
  return error.code === 'DUPLICATE_PHONE' || error.code === 'DUPLICATE_EXTERNAL_ID';
}
export const survey: Body<Crm['triggerSatisfactionSurvey']> | undefined = undefined;
export function onNote(note: Answer<Notes['getNote'], 200>): string[] {
  return (note.data.note_sections ?? []).map((section) => section.title);
}
export function onStatus(status: Answer<Notes['getNoteStatus'], 200>): string { return status.status; }
export function onMissing(error: Answer<Notes['getNote'], 404>): boolean { return error.code === 'NOTE_NOT_FOUND'; }
export const login: Body<Crm['login']> = { email: 'admin@clinic.example', password: 'secret' };
`,
    );
    expect(errors).toEqual([]);
  });

  it('refuses calls that break the contract, so the check above can fail', async () => {
    const errors = await typeCheck(
      'wrong-calls.ts',
      `
export const upsert: Body<Crm['upsertContact']> = { name: 42 };
export function onConflict(error: Answer<Crm['upsertContact'], 409>): boolean { return error.code === 'NOTE_NOT_FOUND'; }
export function onNote(note: Answer<Notes['getNote'], 200>): string { return note.data.no_such_field; }
export type Missing = Crm['noSuchOperation'];
export const noSection: Notes['updateNoteSection']['parameters']['query'] = {};
export const noAudio: Notes['createNote']['requestBody']['content']['multipart/form-data'] = { metadata: { name: 'Thor' } };
`,
    );
    expect(errors.length, errors.join('\n')).toBe(6);
  });
});

// What an integrator writes with openapi-fetch: every path, parameter and body below is checked
// against the generated types, and the same file then runs against the server.
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths as NotesPaths } from './notes.ts';
import type { paths as CrmPaths } from './flow.ts';

export async function uploadNote(baseUrl: string, key: string, audio: Blob) {
  const notes = createClient<NotesPaths>({ baseUrl: baseUrl + '/notes/v1', headers: { 'X-API-KEY': key } });
  const { data, error, response } = await notes.POST('/notes', {
    body: { audio, metadata: { name: 'Thor', gender: 'male', external_id: 'PAC-1', note_style: 'verbatim' } },
    bodySerializer(body) {
      const form = new FormData();
      form.append('metadata', JSON.stringify(body.metadata));
      form.append('audio', body.audio, 'consultation.mp3');
      return form;
    },
  });
  if (error) throw new Error('upload refused: ' + response.status + ' ' + error.code);
  const id: string = data.data.id;
  for (let tries = 0; tries < 400; tries++) {
    const status = await notes.GET('/notes/{id}/status', { params: { path: { id } } });
    if (status.data?.status === 'completed' || status.data?.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const note = await notes.GET('/notes/{id}', { params: { path: { id } } });
  if (!note.data) throw new Error('fetch refused: ' + note.response.status);
  return note.data.data;
}

export async function editFirstSection(baseUrl: string, key: string, sectionId: string) {
  const notes = createClient<NotesPaths>({ baseUrl: baseUrl + '/notes/v1', headers: { 'X-API-KEY': key } });
  const { data, error, response } = await notes.PATCH('/note_sections', {
    params: { query: { section_id: sectionId } },
    body: { title: 'Anamnese revisada', content: 'Vômito há dois dias.', order: '1' },
  });
  if (error) throw new Error('edit refused: ' + response.status + ' ' + error.code);
  return data;
}

export async function upsertContact(baseUrl: string, token: string, workspaceId: string) {
  const crm = createClient<CrmPaths>({ baseUrl: baseUrl + '/flow/v1', headers: { Authorization: 'Bearer ' + token } });
  const { data, error, response } = await crm.PUT('/external/workspaces/{workspace_id}/contacts', {
    params: { path: { workspace_id: workspaceId } },
    body: { name: 'Maria Souza', phone: '+55 11 98765-4321', external_id: 'ERP-42' },
  });
  if (error) throw new Error('upsert refused: ' + response.status + ' ' + error.code);
  return { status: response.status, action: data.action, id: data.contact.id };
}
`;

describe('a client built with openapi-typescript and openapi-fetch from the served documents', () => {
  it('type-checks an upload, a section edit and a contact upsert', async () => {
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    const errors = await typeCheck('client-check.ts', "export * from './client.ts';");
    expect(errors).toEqual([]);
  });

  it('uploads, edits a section and upserts a contact against a listening server', async () => {
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    const clinic = await createClinicWithKeys(t.db.database);
    const workspace = await makeWorkspace(t);
    const { token } = await makeKey(t, workspace.workspaceId);
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const client = (await import(path.join(dir, 'client.ts'))) as {
      uploadNote(baseUrl: string, key: string, audio: Blob): Promise<any>;
      editFirstSection(baseUrl: string, key: string, sectionId: string): Promise<any>;
      upsertContact(baseUrl: string, token: string, workspaceId: string): Promise<{ status: number; action: string; id: string }>;
    };

    const note = await client.uploadNote(
      baseUrl,
      clinic.editor,
      new Blob([new Uint8Array(fixture('consultation.mp3'))], { type: 'audio/mpeg' }),
    );
    expect(note).toMatchObject({ name: 'Thor', external_id: 'PAC-1', transcription_status: 'completed' });
    const section = note.note_sections![0]!;
    const edited = await client.editFirstSection(baseUrl, clinic.editor, section.id);
    expect(edited).toMatchObject({ id: section.id, title: 'Anamnese revisada', content: 'Vômito há dois dias.', order: '1' });

    const first = await client.upsertContact(baseUrl, token, workspace.workspaceId);
    expect(first).toMatchObject({ status: 201, action: 'created' });
    expect(await client.upsertContact(baseUrl, token, workspace.workspaceId)).toMatchObject({ status: 200, id: first.id });
  });
});
