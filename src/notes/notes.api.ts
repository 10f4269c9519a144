import type { ApiDescription } from '../platform/http/openapi.ts';
import type { AppInstance } from '../platform/http/types.ts';
import { registerRateLimit } from '../platform/rate-limit.ts';
import { registerNotesAccess } from './auth/notes-access.ts';
import { exportRoutes } from './export/export.routes.ts';
import { notesKeyRoutes } from './keys/keys.routes.ts';
import { liveRoutes } from './live/live.routes.ts';
import type { NotesModule } from './notes.module.ts';
import { noteReadRoutes } from './reads/notes.routes.ts';
import { retryRoutes } from './retry/retry.routes.ts';
import { sectionRoutes } from './sections/sections.routes.ts';
import { uploadRoutes } from './upload/upload.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';

/** The clinical drafting contract integrators and outside checks rely on (docs/notes-drafting.md). */
const CLINICAL_NOTES_DESCRIPTION =
  "\n\n**Note styles.** `verbatim` (default) files the transcript's own sentences under the sections; `clinical` " +
  '(`"note_style": "clinical"` in the upload metadata, or the server\'s `NOTE_STYLE`) has an OpenAI-compatible chat ' +
  'model draft concise pt-BR clinical prose. The model receives the transcript as numbered lines `[n] text` (n from 1 ' +
  "in time order: the transcription segments, or the transcript's sentences when there are none) and must answer " +
  'exactly `{"sections": [{"label": "<label>", "sentences": [{"text": "…", "segments": [n, …]}]}]}`; a section\'s ' +
  '`content` is its kept sentences joined by a space and its `evidence` the time ranges of the cited segments. Every ' +
  'number, dose, unit, frequency, duration, drug and side (direito/esquerdo) of a sentence must be found in the lines ' +
  'it cites (pt-BR numbers read both ways: "meio comprimido" = 0,5; "de doze em doze horas" = a cada 12 h); a sentence ' +
  'that fails, or cites nothing, is removed and listed in `review_flags` (`ungrounded`, `no_citation`). When the model ' +
  'is unreachable or its answer unusable (not JSON, unknown label, a line out of range), the note completes ' +
  '`verbatim` with a `drafting_unavailable` or `drafting_invalid` flag — never `failed`.';

export const notesApiDescription: ApiDescription = {
  prefix: '/notes/v1',
  title: 'vetflow Notes API',
  version: '1.0.0',
  description:
    'Upload the audio of a veterinary consultation, get it transcribed asynchronously and read the ' +
    'resulting structured note. Every request carries `X-API-KEY`. Every error has the flat body ' +
    '`{error, message, code, details?, request_id}`. Rate limits per key and minute by role ' +
    '(administrator 1000, editor 500, viewer 200) with `X-RateLimit-*-Minute` headers; ' +
    '`GET /notes/{id}/status` is not limited. Successful bodies use the envelope `{status: "success", data}` ' +
    '(lists add `meta`), except these, which answer a bare object: `GET /notes/{id}/status`, ' +
    '`PATCH /note_sections`, `POST /webhooks`. Webhooks (`/webhooks`, administrator): events ' +
    '`note.completed` and `note.failed` are POSTed as `{type, timestamp, data}`, signed per Standard Webhooks ' +
    '(`webhook-id`, `webhook-timestamp` in Unix seconds, `webhook-signature: v1,<base64 HMAC-SHA256>`), ' +
    'retried with backoff for about 24 h on timeouts, 429 and 5xx. ' +
    CLINICAL_NOTES_DESCRIPTION,
  securitySchemes: {
    NotesApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: '`vnk_` + 32 lowercase hex characters' },
  },
  securityByAccess: { notesPermission: 'NotesApiKey' },
};

const USAGE_FLUSH_INTERVAL_MS = 5_000;

/** The /notes/v1 tree: key authentication, per-key rate limits and usage, then the routes. */
export async function notesApi(app: AppInstance, { module }: { module: NotesModule }) {
  const { config, database } = app.vetflow;
  const { authenticator, usage, services } = module;
  const unfollow = authenticator.followInvalidations(database.invalidation);
  app.addHook('onClose', async () => unfollow());
  usage.start(USAGE_FLUSH_INTERVAL_MS);
  app.addHook('onClose', () => usage.stop());

  registerNotesAccess(app, authenticator);
  const limits = {
    administrator: config.RATE_LIMIT_ADMINISTRATOR_PER_MINUTE,
    editor: config.RATE_LIMIT_EDITOR_PER_MINUTE,
    viewer: config.RATE_LIMIT_VIEWER_PER_MINUTE,
  };
  await registerRateLimit(app, {
    db: database.db,
    redis: app.vetflow.redis,
    subjectOf: (request) =>
      request.notesCaller
        ? { key: `notes:${request.notesCaller.keyId}`, limitPerMinute: limits[request.notesCaller.role], role: request.notesCaller.role }
        : null,
  });

  app.addHook('onResponse', async (request, reply) => {
    const caller = request.notesCaller;
    if (!caller) return;
    const endpoint = `${request.method} ${request.routeOptions.url?.slice(notesApiDescription.prefix.length) ?? ''}`;
    usage.record(caller.keyId, endpoint, reply.statusCode);
  });

  await app.register(notesKeyRoutes, { keys: services.keys });
  await app.register(uploadRoutes, { upload: services.upload });
  await app.register(liveRoutes, { live: services.live });
  await app.register(noteReadRoutes, { notes: services.notes });
  await app.register(exportRoutes, { exports: services.exports });
  await app.register(retryRoutes, { retries: services.retries });
  await app.register(sectionRoutes, { sections: services.sections });
  await app.register(webhookRoutes, { webhooks: services.webhooks });
}
