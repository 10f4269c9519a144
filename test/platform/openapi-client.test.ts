import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.ts';

// What an integrator does first: generate a typed client from each served document and code against
// it. openapi-typescript writes the types; the TypeScript compiler checks calls written the way an
// ERP developer would (by operationId), and refuses calls that break the contract.

const { app } = await createTestApp();
const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tsc = path.resolve('node_modules/.bin/tsc');
const run = promisify(execFile);

const documents: Record<'notes' | 'flow', any> = {
  notes: (await app.inject({ method: 'GET', url: '/notes/v1/openapi.json' })).json(),
  flow: (await app.inject({ method: 'GET', url: '/flow/v1/openapi.json' })).json(),
};
for (const [name, document] of Object.entries(documents)) writeFileSync(path.join(dir, `${name}.ts`), await openapiTS(document));

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
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--allowImportingTsExtensions', path.join(dir, file)];
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
`,
    );
    expect(errors.length, errors.join('\n')).toBe(4);
  });
});
