import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { demoNotesKey, startServer } from '../helpers/processes.ts';
import { uploadNoteOverHttp } from '../helpers/uploads.ts';
import { startReceiver } from '../notes/webhooks-receiver.ts';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// `node src/main.ts` with OTEL_EXPORTER_OTLP_ENDPOINT set, exporting to a local OTLP/HTTP receiver:
// an upload's request span with its SQL, the transcription job's span linked to it, the call to the
// transcription server and the webhook delivery below the jobs.

const SERVER = 2;
const CLIENT = 3;

const database = await createEmptyPostgresDatabase();
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-tracing-'));
const otlp = await startOtlpReceiver();
const whisper = await startFakeServer();
whisper.handle((_request, response) =>
  json(response, 200, { text: 'Anamnese: tosse há cinco dias.', language: 'portuguese', duration: 23.7 }),
);
const hooks = await startReceiver();
afterAll(async () => {
  await otlp.close();
  await whisper.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);

describe('without an OTLP endpoint', () => {
  it('loads no OpenTelemetry module at all', async () => {
    const watch = { NODE_OPTIONS: '--import ./test/helpers/record-modules.ts' };
    // A database of its own (Postgres starts faster than the embedded one); the other test needs a fresh one.
    const own = await createEmptyPostgresDatabase();
    const counts = [];
    try {
      for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint }] as Record<string, string>[]) {
        const where: Record<string, string> = own ? { DATABASE_URL: own.url } : {};
        const server = await startServer({ DATA_DIR: mkdtempSync(path.join(dataDir, 'p-')), ...where, ...watch, ...env });
        await server.stop();
        counts.push(Number(/WATCHED_MODULES (\d+)/.exec(server.output.join('\n'))?.[1]));
      }
    } finally {
      await own?.drop();
    }
    // Off: none. On (the same recorder sees them): the SDK's modules.
    expect(counts[0]).toBe(0);
    expect(counts[1]).toBeGreaterThan(10);
  }, 90_000);
});

// SQL spans need the pg driver: Postgres only (the embedded database has no driver to trace).
describe.skipIf(!database)('traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
  it('exports the upload request with its SQL, and the transcription job linked to it with its calls out', async () => {
    const server = await startServer({
      DATABASE_URL: database!.url,
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'vetflow-test',
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_BASE_URL: whisper.baseUrl,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // On Postgres the webhook encryption key comes from the environment only.
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'),
      JOB_POLLING_INTERVAL_SECONDS: '0.5',
    });
    try {
      const adminKey = demoNotesKey(server);
      const headers = { 'x-api-key': adminKey };
      const hook = await fetch(`${server.baseUrl}/notes/v1/webhooks`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ url: hooks.url, events: ['note.completed'] }),
      });
      expect(hook.status).toBe(201);
      await uploadNoteOverHttp(server.baseUrl, adminKey, { name: 'Thor' }, 'consultation.m4a');
      await eventually(async () => hooks.received.length > 0, 30_000);

      const spans = await eventually(async () => {
        const all = otlp.spans;
        return byName(all, 'job notes.webhook-deliver').length > 0 && byName(all, 'POST /notes/v1/notes').length > 0 && [...all];
      }, 20_000);
      expect(otlp.paths.every((line) => line.startsWith('POST /v1/traces application/json'))).toBe(true);
      expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['vetflow-test']));

      // The request: one server span named after the route template, its statements below it.
      const [request] = byName(spans, 'POST /notes/v1/notes');
      expect(request).toMatchObject({ kind: SERVER, parentSpanId: undefined });
      expect(request!.attributes['http.route']).toBe('/notes/v1/notes');
      const sql = childrenOf(spans, request!).filter(
        (span) => span.attributes['db.system'] === 'postgresql' || span.attributes['db.system.name'] === 'postgresql',
      );
      expect(sql.length).toBeGreaterThanOrEqual(2);
      expect(
        sql.some((span) => /insert into "notes"/i.test(String(span.attributes['db.statement'] ?? span.attributes['db.query.text']))),
      ).toBe(true);

      // The job: its own trace, linked to the request that sent it, with its SQL and its call out.
      const [job] = byName(spans, 'job notes.transcribe');
      expect(job!.links).toEqual([{ traceId: request!.traceId, spanId: request!.spanId }]);
      expect(job!.traceId).not.toBe(request!.traceId);
      const inJob = spans.filter((span) => span.traceId === job!.traceId);
      expect(
        inJob.some(
          (span) =>
            span.parentSpanId === job!.spanId && String(span.attributes['db.system'] ?? span.attributes['db.system.name']) === 'postgresql',
        ),
      ).toBe(true);
      const whisperPort = new URL(whisper.baseUrl).port;
      const toWhisper = inJob.filter((span) => span.kind === CLIENT && JSON.stringify(span.attributes).includes(`:${whisperPort}`));
      expect(toWhisper.length).toBe(1);

      // The webhook delivery: a job linked to the transcription job (which recorded the event), its POST below it.
      const [deliver] = byName(spans, 'job notes.webhook-deliver');
      expect(deliver!.links).toEqual([{ traceId: job!.traceId, spanId: job!.spanId }]);
      const hookPort = new URL(hooks.url).port;
      expect(
        spans.some(
          (span) => span.traceId === deliver!.traceId && span.kind === CLIENT && JSON.stringify(span.attributes).includes(`:${hookPort}`),
        ),
      ).toBe(true);

      // Nothing of the patient in any span; query strings are not kept.
      expect(JSON.stringify(spans)).not.toContain('Thor');
    } finally {
      await server.stop();
    }
  }, 90_000);
});
