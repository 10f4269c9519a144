import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/client.ts';
import { idempotency } from '../platform/db/idempotency.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { Logger } from '../platform/logger.ts';
import type { Drafter } from '../providers/drafting/port.ts';
import type { Sectioner } from '../providers/sectioning/port.ts';
import type { AudioStorage } from '../providers/storage/port.ts';
import type { TranscriptionProvider } from '../providers/transcription/port.ts';
import { KeyAuthenticator } from './auth/key-authenticator.ts';
import { type ErasureService, erasureService } from './erasure/erasure.service.ts';
import { ErasureLogKeys } from './erasure/erasure-log-key.ts';
import { purgeFilesJob } from './erasure/purge-files.ts';
import { type ExportService, exportService } from './export/export.service.ts';
import { type FollowUpsService, followUpsService } from './follow-ups/follow-ups.service.ts';
import { type HistoryService, historyService } from './history/history.service.ts';
import { type KeysService, keysService } from './keys/keys.service.ts';
import { UsageRecorder } from './keys/usage-recorder.ts';
import { createLiveCapture, liveCaptureJobs, liveNotesTranscriber } from './live/live.module.ts';
import type { LiveService } from './live/live.service.ts';
import { type PlanEditService, planEditService } from './plan-edit/plan-edit.service.ts';
import { measuredProviders } from './processing/measured-providers.ts';
import { reconcileJob } from './processing/reconcile.job.ts';
import { notesTempDirs, staleTempSeconds, TempFileSweeper } from './processing/temp-dir.ts';
import { transcribeJob } from './processing/transcribe.job.ts';
import { type NotesService, notesService } from './reads/notes.service.ts';
import { type RecordService, recordService } from './record/record.service.ts';
import { type AudioService, audioService } from './recording/audio.service.ts';
import { type RetryService, retryService } from './retry/retry.service.ts';
import { type SectionsService, sectionsService } from './sections/sections.service.ts';
import { type SettingsService, settingsService } from './settings/settings.service.ts';
import { type TemplatesService, templatesService } from './templates/templates.service.ts';
import { type UploadService, uploadService } from './upload/create-note.service.ts';
import { createWebhooksModule, type WebhooksModule } from './webhooks/webhooks.module.ts';
import { type WebhooksService, webhooksService } from './webhooks/webhooks.service.ts';

/**
 * The Notes tree, built once by the composition root (app.ts): storage, providers, the jobs it
 * registers on the queue, and its services — each a bound object whose operations take
 * `(caller, input)`, handed to the routes that call them.
 */
export interface NotesModule {
  readonly storage: AudioStorage;
  readonly webhooks: WebhooksModule;
  /** This process's Notes key cache (the access guard reads it; revocations empty it). */
  readonly authenticator: KeyAuthenticator;
  /** Per-key request counts, written in batches (started and stopped with the API). */
  readonly usage: UsageRecorder;
  /** The erasure log's keys (loaded, and the log's unkeyed rows keyed, when the API starts). */
  readonly erasureLog: ErasureLogKeys;
  /** Removes temporary audio a killed process left (started and stopped with the app, in every process). */
  readonly tempFiles: TempFileSweeper;
  readonly services: NotesServices;
}

export interface NotesServices {
  readonly keys: KeysService;
  readonly upload: UploadService;
  readonly notes: NotesService;
  readonly exports: ExportService;
  readonly retries: RetryService;
  readonly sections: SectionsService;
  readonly planEdit: PlanEditService;
  readonly followUps: FollowUpsService;
  readonly settings: SettingsService;
  readonly templates: TemplatesService;
  readonly webhooks: WebhooksService;
  readonly record: RecordService;
  readonly history: HistoryService;
  readonly audio: AudioService;
  readonly live: LiveService;
  readonly erasure: ErasureService;
}

/** The ports note processing uses (src/providers/adapters.ts chooses their adapters). */
export interface NotesProviders {
  transcriber: TranscriptionProvider;
  sectioner: Sectioner;
  /** Writes `clinical` notes; absent or null when none is configured. */
  drafter?: Drafter | null;
}

/** Every port the Notes tree uses, given by the composition root. */
export interface NotesPorts extends NotesProviders {
  storage: AudioStorage;
}

/** Notes keys looked up by hash are cached this long per process (revocations empty it at once). */
const KEY_CACHE_TTL_MS = 3_000;

/**
 * Builds the Notes tree on `jobs`, before the queue starts: every Notes job is registered here (the
 * feature modules, webhooks and live, only build their definitions), and its services are bound
 * once to the database, the queue and the settings they use.
 */
export function createNotesModule(config: Config, database: Database, jobs: JobQueue, logger: Logger, ports: NotesPorts): NotesModule {
  const db = database.db;
  const { storage, ...providers } = ports;
  const tempDirs = notesTempDirs(config);
  const webhooks = createWebhooksModule(config, database, jobs, logger);
  // Webhook deliveries, and the sweep that re-queues overdue ones (notes/webhooks/).
  jobs.register(webhooks.jobs.deliver);
  jobs.register(webhooks.jobs.sweep);
  const erasureLog = new ErasureLogKeys(config, db, logger);
  const measured = measuredProviders(providers);
  const transcribe = jobs.register(
    transcribeJob({
      db,
      storage,
      ...measured,
      timeoutSeconds: config.TRANSCRIPTION_TIMEOUT_SECONDS,
      heartbeatSeconds: config.TRANSCRIPTION_HEARTBEAT_SECONDS,
      retryDelaySeconds: config.TRANSCRIPTION_RETRY_DELAY_SECONDS,
      concurrency: config.TRANSCRIPTION_CONCURRENCY,
      events: webhooks.noteEvents,
      // The provider says what one request may carry; the sandbox takes any audio whole.
      transcriptionLimits: measured.transcriber.requestLimits ?? null,
      tempDir: tempDirs.transcription,
      liveNotes: liveNotesTranscriber({ config, db, jobs, storage, transcriber: measured.transcriber }),
    }),
  );
  jobs.register(
    reconcileJob({
      db,
      jobs,
      transcribe,
      staleAfterSeconds: config.TRANSCRIPTION_TIMEOUT_SECONDS * 2 + 60,
      events: webhooks.noteEvents,
    }),
  );

  // The files of deleted notes, retried in the background when storage refuses (notes/erasure/).
  const purge = jobs.register(purgeFilesJob({ storage, tempDirs }));

  // A live capture's parts transcribed as they arrive, its idle close and the joining of its recording (notes/live/).
  const built = liveCaptureJobs({ config, db, jobs, storage, transcriber: measured.transcriber, events: webhooks.noteEvents, transcribe });
  const liveJobs = { part: jobs.register(built.part), join: jobs.register(built.join), idle: jobs.register(built.idle) };

  const idempotent = idempotency(db);
  const authenticator = new KeyAuthenticator(db, KEY_CACHE_TTL_MS);
  const usage = new UsageRecorder(db, logger);
  const services: NotesServices = {
    keys: keysService({ db, authenticator, usage }),
    upload: uploadService({
      idempotent,
      jobs,
      storage,
      transcribe,
      minSeconds: config.AUDIO_MIN_SECONDS,
      maxSeconds: config.AUDIO_MAX_SECONDS,
      defaultNoteStyle: config.NOTE_STYLE,
      clinicalAvailable: Boolean(providers.drafter),
    }),
    notes: notesService({ db, publicBaseUrl: config.PUBLIC_BASE_URL, listCountLimit: config.NOTES_LIST_COUNT_LIMIT }),
    exports: exportService({ db }),
    retries: retryService({ db, storage, idempotent, jobs, transcribe, maxRetries: config.NOTE_MAX_RETRIES }),
    sections: sectionsService({ db }),
    planEdit: planEditService({ db }),
    followUps: followUpsService({ db }),
    settings: settingsService({ db }),
    templates: templatesService({ db }),
    webhooks: webhooksService({ db, webhooks }),
    record: recordService({ db, events: webhooks.noteEvents, publicBaseUrl: config.PUBLIC_BASE_URL }),
    history: historyService({ db }),
    audio: audioService({ db, storage, publicBaseUrl: config.PUBLIC_BASE_URL }),
    live: createLiveCapture({
      config,
      db,
      jobs,
      storage,
      idempotent,
      transcribe,
      liveJobs,
      defaultNoteStyle: config.NOTE_STYLE,
      clinicalAvailable: Boolean(providers.drafter),
    }),
    erasure: erasureService({ db, jobs, purge, storage, tempDirs, logger, erasureLog }),
  };
  const tempFiles = new TempFileSweeper(tempDirs, staleTempSeconds(config), logger);
  return { storage, webhooks, authenticator, usage, erasureLog, tempFiles, services };
}
