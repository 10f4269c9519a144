import type { Config } from '../../platform/config.ts';
import type { Db } from '../../platform/db/client.ts';
import type { Idempotent } from '../../platform/db/idempotency.ts';
import type { JobDefinition, JobQueue } from '../../platform/jobs.ts';
import type { NoteStyle } from '../../providers/drafting/port.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { TranscriptionProvider } from '../../providers/transcription/port.ts';
import { clinicShares } from '../processing/clinic-share.ts';
import { notesTempDirs } from '../processing/temp-dir.ts';
import type { LiveNotesTranscriber } from '../processing/transcribe.job.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';
import { captureIdleJob } from './capture-idle.job.ts';
import { joinRecordingJob } from './join-recording.job.ts';
import { type LiveService, liveService } from './live.service.ts';
import { livePartJob } from './live-part.job.ts';
import { type PartTranscriptionDeps, transcribeLiveNote } from './part-transcription.ts';
import { clearPartTranscripts } from './parts.repo.ts';

interface LiveDeps {
  config: Config;
  db: Db;
  jobs: JobQueue;
  storage: AudioStorage;
  transcriber: TranscriptionProvider;
}

function partTranscription({ config, db, storage, transcriber }: LiveDeps): PartTranscriptionDeps {
  return {
    db,
    storage,
    transcriber,
    limits: transcriber.requestLimits ?? null,
    tempRoot: notesTempDirs(config).live,
    retryDelaySeconds: config.TRANSCRIPTION_RETRY_DELAY_SECONDS,
    leaseSeconds: config.TRANSCRIPTION_HEARTBEAT_SECONDS,
    pieceSeconds: config.LIVE_PART_REQUEST_SECONDS,
  };
}

/** How the note transcription job transcribes a live note: from its parts (processing/transcribe.job.ts). */
export function liveNotesTranscriber(deps: LiveDeps): LiveNotesTranscriber {
  const parts = partTranscription(deps);
  return {
    transcribe: (note, signal, logger) => transcribeLiveNote(parts, note, signal, logger),
    transcribed: (noteId) => clearPartTranscripts(noteId, deps.db),
  };
}

/** The live capture's job definitions; notes.module.ts registers them (the one place every Notes job is). */
export function liveCaptureJobs(deps: LiveDeps & { events: NoteEvents; transcribe: JobDefinition<{ noteId: string }> }) {
  const { config, db, jobs } = deps;
  const parts = partTranscription(deps);
  const part = livePartJob({
    ...parts,
    heartbeatSeconds: config.TRANSCRIPTION_HEARTBEAT_SECONDS,
    concurrency: config.TRANSCRIPTION_CHUNK_CONCURRENCY,
    shares: clinicShares(config),
  });
  const join = joinRecordingJob({ db, storage: deps.storage, tempRoot: parts.tempRoot });
  const idle = captureIdleJob({
    db,
    jobs,
    events: deps.events,
    idleSeconds: config.LIVE_CAPTURE_IDLE_SECONDS,
    transcribe: deps.transcribe,
    joinJob: join,
  });
  return { part, join, idle };
}

export type LiveCaptureJobs = ReturnType<typeof liveCaptureJobs>;

/** Binds the live capture's service to its jobs, once notes.module.ts has registered them. */
export function createLiveCapture(
  deps: Omit<LiveDeps, 'transcriber'> & {
    idempotent: Idempotent;
    transcribe: JobDefinition<{ noteId: string }>;
    liveJobs: LiveCaptureJobs;
    defaultNoteStyle: NoteStyle;
    clinicalAvailable: boolean;
  },
): LiveService {
  const { config, liveJobs } = deps;
  return liveService({
    db: deps.db,
    idempotent: deps.idempotent,
    jobs: deps.jobs,
    storage: deps.storage,
    transcribe: deps.transcribe,
    partJob: liveJobs.part,
    idleJob: liveJobs.idle,
    joinJob: liveJobs.join,
    idleSeconds: config.LIVE_CAPTURE_IDLE_SECONDS,
    maxSeconds: config.AUDIO_MAX_SECONDS,
    maxBytes: config.AUDIO_MAX_BYTES,
    defaultNoteStyle: deps.defaultNoteStyle,
    clinicalAvailable: deps.clinicalAvailable,
  });
}
