import { z } from 'zod';
import type { RequestLimits } from '../../audio/chunk-plan.ts';
import type { Db } from '../../platform/db/client.ts';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.ts';
import type { FairShares } from '../../platform/fair-shares.ts';
import { defineJob } from '../../platform/jobs.ts';
import type { Logger } from '../../platform/logger.ts';
import { outcomeOf, sectioningDuration, transcriptionDuration, uploadToCompleted } from '../../platform/metrics/notes.ts';
import { secondsSince } from '../../platform/metrics/registry.ts';
import type { Drafter, TemplateSection } from '../../providers/drafting/port.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { Sectioner } from '../../providers/sectioning/port.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import type { Transcript, TranscriptionProvider } from '../../providers/transcription/port.ts';
import { compareWithLastVisit } from '../patients/changes-since-last-visit.ts';
import { signedVisitsBefore } from '../patients/patients.repo.ts';
import { previousVisitOf } from '../patients/previous-visit.ts';
import { planOfTranscript } from '../plan/extract-plan.ts';
import { misheardDrugFlags } from '../plan/misheard-flags.ts';
import { planContextOf } from '../plan/plan-context.ts';
import { claimForProcessing, type NoteRow, releaseNote } from '../store/notes.repo.ts';
import { planSettingsOf } from '../store/settings.repo.ts';
import type { Species } from '../store/vitals.schemas.ts';
import { templateOfNote } from '../templates/builtin-templates.ts';
import { vitalsOfTranscript } from '../vitals/note-vitals.ts';
import { detectSpecies } from '../vitals/species.ts';
import type { NoteEvents } from '../webhooks/note-events.ts';
import { transcribeNoteAudio } from './chunked-transcription.ts';
import { deleteChunks } from './chunks.repo.ts';
import { groundDraftedPlan } from './drafted-plan.ts';
import { groundDraftedVitals } from './drafted-vitals.ts';
import { noteOutcomes } from './note-outcome.ts';
import { INTERRUPTED_TOO_OFTEN, lastRun, runsSpent, transcribeQueuePolicy } from './retry-budget.ts';
import { markedSimulated, writeSections } from './write-sections.ts';

export interface ProcessingDeps {
  db: Db;
  storage: AudioStorage;
  transcriber: TranscriptionProvider;
  sectioner: Sectioner;
  /** Writes `clinical` notes; null when DRAFTING_PROVIDER=none. */
  drafter?: Drafter | null;
  /** Seconds a worker may hold a note before its job is considered dead and handed on. */
  timeoutSeconds: number;
  /** Heartbeat interval: a killed worker's job is retried after about this long. */
  heartbeatSeconds: number;
  /** First delay before another run, or another try of a chunk (retry-budget.ts). */
  retryDelaySeconds: number;
  /** Notes one worker process transcribes at the same time. */
  concurrency: number;
  /** Clinics take turns and each has a cap on notes in flight (PROCESSING_ORDER=fair); null: first come, first served. */
  shares: FairShares | null;
  /** Records note.completed / note.failed in the transaction of the status change (webhooks). */
  events: NoteEvents;
  /** What one request to the transcription server may carry; longer audio is sent in chunks. */
  transcriptionLimits: RequestLimits | null;
  /** Where chunks of long audio are cut to (one directory per note, removed afterwards). */
  tempDir: string;
  /** Live notes are transcribed from their parts (notes/live/, given by the module). */
  liveNotes?: LiveNotesTranscriber | null;
}

/** A live note's transcript from its parts, and the cleanup once the note completed. */
export interface LiveNotesTranscriber {
  transcribe(note: NoteRow, signal: AbortSignal, logger: Pick<Logger, 'info' | 'warn'>): Promise<Transcript>;
  transcribed(noteId: string): Promise<void>;
}

export const TRANSCRIBE_QUEUE = 'notes.transcribe';
export const TranscribePayload = z.object({ noteId: z.uuid() });

/**
 * pending → processing → transcription → sections → completed, or failed with {code, message}.
 * Errors that may pass send the note back to pending for another run, within the note's retry
 * budget (retry-budget.ts: how often, and for how long); on its last run, or for an error that will
 * not pass, the note fails. Re-running a finished note does nothing.
 */
export function transcribeJob(deps: ProcessingDeps) {
  const outcomes = noteOutcomes(deps);
  return defineJob({
    name: TRANSCRIBE_QUEUE,
    payload: TranscribePayload,
    queue: {
      ...transcribeQueuePolicy(deps.retryDelaySeconds),
      expireInSeconds: deps.timeoutSeconds,
      heartbeatSeconds: deps.heartbeatSeconds,
    },
    // Up to `concurrency` notes at once per worker process. With fair shares each slot fetches the
    // next clinic's turn as soon as it is free; first come, first served fetches in batches (a full
    // batch fetches the next at once).
    ...(deps.shares ? { shares: deps.shares, work: { localConcurrency: deps.concurrency } } : { work: { batchSize: deps.concurrency } }),
    async handle({ noteId }, { signal, retryCount, retryLimit, logger }) {
      const note = await claimForProcessing(noteId, deps.db);
      if (!note) return; // completed, failed or deleted meanwhile
      if (runsSpent(note.attempts)) {
        await outcomes.fail(noteId, INTERRUPTED_TOO_OFTEN);
        return;
      }
      const transcribing = performance.now();
      const provider = deps.transcriber.name;
      try {
        const live = note.captureState ? deps.liveNotes : null;
        const transcript = await (live
          ? live.transcribe(note, signal, logger)
          : transcribeNoteAudio(
              {
                db: deps.db,
                storage: deps.storage,
                transcriber: deps.transcriber,
                limits: deps.transcriptionLimits,
                tempRoot: deps.tempDir,
                retryDelaySeconds: deps.retryDelaySeconds,
              },
              note,
              signal,
              logger,
            )
        ).catch((error) => {
          transcriptionDuration.observe({ provider, outcome: outcomeOf(error) }, secondsSince(transcribing));
          throw error;
        });
        transcriptionDuration.observe({ provider, outcome: 'ok' }, secondsSince(transcribing));
        const sectioning = performance.now();
        // The patient's earlier signed notes: the clinical draft's context, and what the plan is compared with.
        const lastVisits = note.externalId ? await signedVisitsBefore({ ...note, externalId: note.externalId }, deps.db) : [];
        const previous = note.noteStyle === 'clinical' && lastVisits[0] ? await previousVisitOf(lastVisits[0], deps.db) : null;
        const drafted = await writeSections(
          note.noteStyle,
          { text: transcript.text, segments: transcript.segments, language: transcript.language },
          // The template as it was when the note was made (a retry too), never as it is now.
          templateOfNote(note).sections as TemplateSection[],
          { sectioner: deps.sectioner, drafter: deps.drafter ?? null },
          signal,
          previous,
        );
        const vitals = vitalsOfTranscript(transcript);
        const species = (note.species as Species | null) ?? detectSpecies(transcript.text);
        // The plan, from the whole transcript with its times (notes-plan.md); its date from the note's visit date.
        const planContext = planContextOf({ ...note, vitals }, await planSettingsOf(note.clinicId, deps.db));
        const read = planOfTranscript(transcript, planContext);
        // What changed since the patient's last signed note (docs/notes-patients.md): a first visit, or a note without an external id, as read.
        const { plan, flags: changedFlags } = compareWithLastVisit(read, lastVisits);
        const grounded = groundDraftedPlan(groundDraftedVitals(drafted, vitals), read, planContext);
        // Drug names the model may have misheard, for the vet to check (the text is left as heard).
        // The patient's name is no drug either ("Carla" is not "carprofeno" misheard).
        const misheard = misheardDrugFlags(transcript, [...planContext.clinicDrugNames, note.name]);
        const sectioned = { ...grounded, reviewFlags: [...grounded.reviewFlags, ...changedFlags, ...misheard], plan };
        // Stored at completion: a note a real provider transcribed is never marked.
        const written = transcript.simulated === true ? markedSimulated(sectioned) : sectioned;
        sectioningDuration.observe({ style: written.style }, secondsSince(sectioning));
        if (note.captureState === 'auto_closed')
          written.reviewFlags.push({ section: null, sentence: null, reason: 'capture_auto_closed', token: null });
        // The code and a fixed description only: never the transcript, the draft or the server's words.
        if (written.fallback)
          logger.warn(
            { noteId, code: written.fallback.code, reason: written.fallback.message },
            'clinical draft unusable; note written verbatim',
          );
        const completed = await outcomes.complete(
          noteId,
          {
            text: transcript.text,
            language: transcript.language,
            duration_seconds: transcript.durationSeconds,
            segments: transcript.segments,
            provider: transcript.provider,
            model: transcript.model,
          },
          written,
          { clinicId: note.clinicId, species, vitals },
        );
        if (completed) uploadToCompleted.observe((Date.now() - note.createdAt.getTime()) / 1000);
        await deleteChunks(noteId, deps.db);
        if (live) await live.transcribed(noteId);
        logger.info(
          { noteId, style: written.style, sections: written.sections.length, reviewFlags: written.reviewFlags.length },
          'note completed',
        );
      } catch (error) {
        // A database outage is not the note's failure: the job queue waits for the database and re-runs.
        if (!(error instanceof ProviderError) && isDatabaseUnavailable(error)) throw error;
        const retryable = !(error instanceof ProviderError) || error.retryable;
        if (!retryable || lastRun(note.attempts, { retryCount, retryLimit })) {
          const code = error instanceof ProviderError ? error.code : 'PROCESSING_FAILED';
          const message = error instanceof ProviderError ? error.message : 'The note could not be processed';
          await outcomes.fail(noteId, { code, message });
          logger.warn({ noteId, code, err: error }, 'note failed');
          return;
        }
        await releaseNote(noteId, deps.db);
        throw error;
      }
    },
  });
}
