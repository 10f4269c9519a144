import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sql } from '../../src/platform/db/drizzle.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { CRM_TEST_ENV, makeKey, makeWorkspace } from '../helpers/crm.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { fixture, postNote } from '../helpers/uploads.ts';

// A run at the most verbose level that writes patient and contact data with marker values, sends
// credentials under odd header names, makes queries fail with those values as parameters, and
// aborts an upload: no marker may appear in any log line (LGPD: logs must not collect clinical or
// contact data; README: keys are never logged).

const t = await createTestApp({ env: { ...CRM_TEST_ENV, LOG_LEVEL: 'trace' }, startWorkers: true });
const { app, logs } = t;
const clinic = await createClinicWithKeys(t.db.database);
const workspace = await makeWorkspace(t);
const crm = await makeKey(t, workspace.workspaceId);

const MARKERS = {
  patient: 'Pimentacanario',
  owner: 'Tutoracanaria Quixabeira',
  externalId: 'PAC-CANARIO-77',
  metadataValue: 'alergiacanario',
  contactName: 'Contatocanario Jequitiba',
  phoneDigits: '975318642',
  email: 'canario.zq@example.com',
  document: '52998224725',
  address: 'Rua Canario 123',
  oddHeaderToken: 'odd-header-canary-token',
};

function expectNoMarker() {
  const all = logs.join('\n');
  for (const [name, marker] of Object.entries(MARKERS)) expect(all.includes(marker), `${name} (${marker}) appears in the logs`).toBe(false);
  expect(all).not.toContain(clinic.admin);
  expect(all).not.toContain(crm.token);
}

describe('no personal data or credential in any log line', () => {
  it('holds through uploads, the pipeline, reads, contact writes, logins and failures', async () => {
    const oddHeaders = {
      'api-key': `${MARKERS.oddHeaderToken}-1`,
      'x-auth-token': `${MARKERS.oddHeaderToken}-2`,
      'proxy-authorization': `Basic ${MARKERS.oddHeaderToken}-3`,
      'x-access-token': clinic.admin,
    };
    const notesHeaders = { 'x-api-key': clinic.admin, ...oddHeaders };
    const created = await postNote(
      app,
      clinic.admin,
      {
        audio: { bytes: fixture('consultation.mp3'), fileName: `${MARKERS.patient}.mp3` },
        metadata: {
          name: MARKERS.patient,
          owner_name: MARKERS.owner,
          external_id: MARKERS.externalId,
          metadata: [{ key: 'alergia', value: MARKERS.metadataValue }],
        },
      },
      oddHeaders,
    );
    expect(created.statusCode, created.body).toBe(201);
    const noteId = created.json().data.id as string;
    await eventually(async () => {
      const status = await app.inject({ method: 'GET', url: `${PREFIX}/notes/${noteId}/status`, headers: notesHeaders });
      return status.json().status === 'completed';
    }, 20_000);
    for (const url of [
      `${PREFIX}/notes?name=${MARKERS.patient}`,
      `${PREFIX}/notes?external_id=${MARKERS.externalId}`,
      `${PREFIX}/notes/${noteId}`,
    ]) {
      expect((await app.inject({ method: 'GET', url, headers: notesHeaders })).statusCode).toBe(200);
    }
    // A 4xx that echoes nothing of the input into the log.
    const tooLong = await app.inject({ method: 'GET', url: `${PREFIX}/notes?name=${MARKERS.patient.repeat(30)}`, headers: notesHeaders });
    expect(tooLong.statusCode).toBe(422);

    const contacts = `/flow/v1/external/workspaces/${workspace.workspaceId}/contacts`;
    const crmHeaders = { authorization: `Bearer ${crm.token}`, ...oddHeaders };
    const contact = {
      name: MARKERS.contactName,
      phone: `11${MARKERS.phoneDigits}`,
      email: MARKERS.email,
      document: MARKERS.document,
      address: MARKERS.address,
    };
    const upserted = await app.inject({ method: 'PUT', url: contacts, headers: crmHeaders, payload: contact });
    expect(upserted.statusCode, upserted.body).toBe(201);
    const duplicate = await app.inject({
      method: 'PUT',
      url: contacts,
      headers: crmHeaders,
      payload: { ...contact, external_id: 'other', document: null, phone: `11${MARKERS.phoneDigits}`, name: `${MARKERS.contactName} 2` },
    });
    expect(duplicate.statusCode).toBeLessThan(500);
    const failedLogin = await app.inject({
      method: 'POST',
      url: '/flow/v1/api/auth/login',
      payload: { email: MARKERS.email, password: 'wrong-password-1' },
    });
    expect(failedLogin.statusCode).toBe(401);
    expectNoMarker();
  });

  it('logs a failed query by statement and SQLSTATE, never its parameters or values', async () => {
    const failing = t.app.vetflow.database.db.execute(
      sql`select ${MARKERS.contactName}::int as n from notes where name = ${MARKERS.patient}`,
    );
    const error = await failing.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeDefined();
    app.log.error({ err: error }, 'query probe');
    const line = logs.find((entry) => entry.includes('"msg":"query probe"')) ?? '';
    expect(line).toContain('"statement":"select from notes"');
    expect(line).toContain('"code":"22P02"');
    expectNoMarker();
  });

  it('logs a client that aborts its upload at info, not as an error', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    const errorsBefore = logs.filter((line) => line.includes('"level":50')).length;
    const boundary = 'canaryboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"name":"${MARKERS.patient}"}\r\n--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.mp3"\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const socket = connect(address.port, '127.0.0.1', () => {
        socket.write(
          `POST ${PREFIX}/notes HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${clinic.admin}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n${head}`,
        );
        socket.write(fixture('consultation.mp3').subarray(0, 64 * 1024), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    await eventually(async () => logs.some((line) => line.includes('client aborted the request')), 5_000);
    const aborted = logs.find((line) => line.includes('client aborted the request')) ?? '';
    expect(aborted).toContain('"level":30');
    expect(logs.filter((line) => line.includes('"level":50')).length).toBe(errorsBefore);
    expectNoMarker();
  });
});
