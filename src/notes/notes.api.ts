import { refuseWhileDatabaseDown } from '../platform/http/database-gate.ts';
import type { ApiDescription } from '../platform/http/openapi.ts';
import type { AppInstance } from '../platform/http/types.ts';
import { registerRateLimit } from '../platform/rate-limit.ts';
import { registerNotesAccess } from './auth/notes-access.ts';
import { erasureRoutes } from './erasure/erasure.routes.ts';
import { exportRoutes } from './export/export.routes.ts';
import { followUpRoutes } from './follow-ups/follow-ups.routes.ts';
import { historyRoutes } from './history/history.routes.ts';
import { notesKeyRoutes } from './keys/keys.routes.ts';
import { liveRoutes } from './live/live.routes.ts';
import type { NotesModule } from './notes.module.ts';
import { planEditRoutes } from './plan-edit/plan-edit.routes.ts';
import { noteReadRoutes } from './reads/notes.routes.ts';
import { recordRoutes } from './record/record.routes.ts';
import { audioRoutes } from './recording/audio.routes.ts';
import { retryRoutes } from './retry/retry.routes.ts';
import { sectionRoutes } from './sections/sections.routes.ts';
import { settingsRoutes } from './settings/settings.routes.ts';
import { templateRoutes } from './templates/templates.routes.ts';
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

/** The clinical record contract (docs/notes-record.md). */
const CLINICAL_RECORD_DESCRIPTION =
  '\n\n**The clinical record.** Every note has `record_status`: `draft`, `signed`, `amended`. A reviewer hears the ' +
  'evidence with `GET /notes/{id}/audio` (byte ranges), signs with `POST /notes/{id}/sign` (name and CRMV licence; open ' +
  'review flags need `acknowledge_flags: true`), after which the note is locked (section edits and retries → 409 ' +
  '`NOTE_SIGNED`) and corrected only by `POST /notes/{id}/amendments` (append-only). The signature and each amendment ' +
  'carry `content_sha256`, the hex SHA-256 of the RFC 8785 canonical JSON of `{note_id, sections: [{label, title, ' +
  'content, order}], signed_by: {name, license}, signed_at}` (sections in display order, as they stand after that ' +
  "signature or amendment; signed_by/signed_at the original signature's); each amendment also `previous_sha256`, the " +
  'link before it. `GET /notes/{id}/history` lists every write, export and audio fetch with the key, request id and time.';
/** The erasure and retention contract (docs/privacy.md). */
const PRIVACY_DESCRIPTION =
  '\n\n**Erasure and retention (LGPD).** An administrator deletes a note with `DELETE /notes/{id}` (a signed note needs ' +
  '`{"reason"}`, else 422 `REASON_REQUIRED`) or every note of one patient with `POST /erasures {external_id, reason}`: ' +
  'recording, transcript, sections, versions, signature, amendments, history, stored idempotent answers and queued ' +
  'jobs go; webhook events already recorded keep only `{type, timestamp, data: {note_id}}`; every route for the id then ' +
  'answers 404 `NOTE_NOT_FOUND`. Each deletion is written to the erasure log (`GET /erasures`), with no patient data. ' +
  '`audio_retention_days` in `/settings` has the daily retention run delete the recordings of completed notes: the ' +
  'note shows `audio.deleted_at` and its audio answers 410 `AUDIO_EXPIRED`.';
/** The templates contract (docs/notes-templates.md). */
const TEMPLATES_DESCRIPTION =
  '\n\n**Templates.** A note is written in the sections of a template: the built-ins `padrao` (the six base sections, ' +
  'the default) and `soap` (`subjetivo` Subjetivo ← anamnesis, `objetivo` Objetivo ← physical_exam, `avaliacao` ' +
  "Avaliação ← diagnosis, `plano` Plano ← treatment, follow_up, observations), or the clinic's own (`/templates`, " +
  'administrator). Every base label is in exactly one section of a template, so no sentence is lost: a verbatim ' +
  'note places each transcript sentence, by the base label the sectioner gave it, in the section gathering that label, ' +
  "in transcript order; a clinical note is drafted for the template's sections, with their instructions, and its " +
  'answer must use the template\'s labels. Chosen per upload (`"template": slug` in the metadata) or by the clinic\'s ' +
  '`default_template` (`/settings`); the note keeps the template it was made with (`template: {slug, name}`).';

const PLAN_DESCRIPTION =
  '\n\n**The plan.** A completed note carries `plan` (medications, exams, vaccines, follow-ups, each with the ' +
  "words and the audio time they came from) and `visit_date` (the upload's `visit_date`, else the day it was " +
  "created in the clinic's `timezone`), read from the transcript when it completes and again from the words a " +
  'section edit or amendment changes; `PUT /notes/{id}/plan` replaces it while unsigned. Exports print it as a ' +
  'receituário; `GET /follow_ups` lists the due follow-ups of every note for reminders.';

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
    '`note.completed`, `note.failed`, `note.signed` and `note.amended` are POSTed as `{type, timestamp, data}`, signed per Standard Webhooks ' +
    '(`webhook-id`, `webhook-timestamp` in Unix seconds, `webhook-signature: v1,<base64 HMAC-SHA256>`), ' +
    'retried with backoff for about 24 h on timeouts, 429 and 5xx. ' +
    CLINICAL_NOTES_DESCRIPTION +
    CLINICAL_RECORD_DESCRIPTION +
    TEMPLATES_DESCRIPTION +
    PLAN_DESCRIPTION +
    PRIVACY_DESCRIPTION,
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
  // Loads the erasure log's key and keys the entries written before it had one, without holding up
  // the start: should it fail, the first erasure or log read tries again.
  app.addHook('onReady', async () => {
    module.erasureLog.keys().catch((error: unknown) => app.log.warn({ err: error }, 'erasure log key not loaded yet'));
  });

  // First: while the database is known down, nothing below it is worth starting.
  refuseWhileDatabaseDown(app);
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

  app.addHook('onResponse', (request, reply, done) => {
    const caller = request.notesCaller;
    if (caller) {
      const endpoint = `${request.method} ${request.routeOptions.url?.slice(notesApiDescription.prefix.length) ?? ''}`;
      usage.record(caller.keyId, endpoint, reply.statusCode);
    }
    done();
  });

  await app.register(notesKeyRoutes, { keys: services.keys });
  await app.register(uploadRoutes, { upload: services.upload });
  await app.register(liveRoutes, { live: services.live });
  await app.register(noteReadRoutes, { notes: services.notes });
  await app.register(exportRoutes, { exports: services.exports });
  await app.register(retryRoutes, { retries: services.retries });
  await app.register(sectionRoutes, { sections: services.sections });
  await app.register(planEditRoutes, { planEdit: services.planEdit });
  await app.register(followUpRoutes, { followUps: services.followUps });
  await app.register(settingsRoutes, { settings: services.settings });
  await app.register(templateRoutes, { templates: services.templates });
  await app.register(webhookRoutes, { webhooks: services.webhooks });
  await app.register(recordRoutes, { record: services.record });
  await app.register(historyRoutes, { history: services.history });
  await app.register(audioRoutes, { audio: services.audio });
  await app.register(erasureRoutes, { erasure: services.erasure });
}
