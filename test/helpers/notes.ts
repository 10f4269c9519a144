import { createClinic, issueOperatorKey } from '../../src/notes/clinics/clinics.service.ts';
import type { Database } from '../../src/platform/db/client.ts';
import { eq, sql } from '../../src/platform/db/drizzle.ts';
import { notesApiKeys } from '../../src/platform/db/schema/index.ts';

export interface ClinicKeys {
  clinicId: string;
  admin: string;
  adminId: string;
  editor: string;
  editorId: string;
  viewer: string;
  viewerId: string;
  expired: string;
  revoked: string;
  disabled: string;
}

/** A clinic with one key of each role, plus an expired, a revoked and a disabled key. */
export async function createClinicWithKeys(database: Database, name = 'Clínica Teste'): Promise<ClinicKeys> {
  const db = database.db;
  const { clinic, adminKey, adminKeyId } = await createClinic({ name }, db);
  const editor = await issueOperatorKey({ clinicId: clinic.id, role: 'editor', name: 'editor' }, db);
  const viewer = await issueOperatorKey({ clinicId: clinic.id, role: 'viewer', name: 'viewer' }, db);
  const expired = await issueOperatorKey({ clinicId: clinic.id, role: 'administrator', name: 'expired' }, db);
  const revoked = await issueOperatorKey({ clinicId: clinic.id, role: 'administrator', name: 'revoked' }, db);
  const disabled = await issueOperatorKey({ clinicId: clinic.id, role: 'administrator', name: 'disabled' }, db);
  await db.update(notesApiKeys).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(notesApiKeys.id, expired.id));
  await db.update(notesApiKeys).set({ revokedAt: sql`now()` }).where(eq(notesApiKeys.id, revoked.id));
  await db.update(notesApiKeys).set({ disabledAt: sql`now()` }).where(eq(notesApiKeys.id, disabled.id));
  return {
    clinicId: clinic.id,
    admin: adminKey,
    adminId: adminKeyId,
    editor: editor.key,
    editorId: editor.id,
    viewer: viewer.key,
    viewerId: viewer.id,
    expired: expired.key,
    revoked: revoked.key,
    disabled: disabled.key,
  };
}

/** Waits, if needed, so that the next `seconds` do not cross a minute boundary (fixed rate windows). */
export async function awayFromMinuteBoundary(seconds = 15): Promise<void> {
  const intoMinute = (Date.now() % 60_000) / 1000;
  if (intoMinute > 60 - seconds) await new Promise((resolve) => setTimeout(resolve, (60 - intoMinute + 0.2) * 1000));
}

export const PREFIX = '/notes/v1';

/** The headers that authenticate a Notes API request with `key`. */
export const as = (key: string) => ({ 'x-api-key': key });
export const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** Every Notes API route as registered (the suites that walk them all: auth, secrets). */
export function notesRoutes<Route extends { method: string; url: string }>(app: { vetflow: { routes: readonly Route[] } }): Route[] {
  return app.vetflow.routes.filter(
    (route) => route.url.startsWith(`${PREFIX}/`) && route.url !== `${PREFIX}/openapi.json` && route.method !== 'HEAD',
  );
}

/** A route's path with every parameter filled with SAMPLE_ID. */
export const sampleUrl = (path: string) => path.replace(/:[A-Za-z_]+/g, SAMPLE_ID);
export const routeLabel = (route: { method: string; url: string }) => `${route.method} ${route.url}`;
