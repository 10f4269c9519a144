import type { Readable } from 'node:stream';
import type { RequestLimits } from '../../audio/chunk-plan.ts';
import type { AudioFormat } from '../../audio/format.ts';
import type { TranscriptSegment } from '../../audio/stitch.ts';

// Speech-to-text behind one small interface. Providers know nothing of notes, tables or routes.

export { AUDIO_CONTENT_TYPES, type AudioFormat } from '../../audio/format.ts';
export type { TranscriptSegment } from '../../audio/stitch.ts';

export interface Transcript {
  /** The whole transcript as plain text. */
  text: string;
  /** ISO 639-1 code when the provider reports it (e.g. `pt`). */
  language: string | null;
  durationSeconds: number | null;
  /** Timed segments when the provider gives them; may be empty. */
  segments: TranscriptSegment[];
  provider: string;
  model: string | null;
  /**
   * True only for a made-up transcript (the sandbox, which has no speech recognition): the note it
   * becomes is marked simulated everywhere it goes. Absent from a real provider's.
   */
  simulated?: boolean;
}

export interface TranscriptionInput {
  /** Opens a fresh stream of the audio bytes; may be called more than once (retries). */
  openAudio(): Readable;
  /**
   * A local file holding exactly these bytes (a chunk cut to the temporary directory), when there
   * is one: a provider may upload it from disk itself instead of through `openAudio`.
   */
  audioFile?: string;
  fileName: string;
  format: AudioFormat;
  /** MIME type matching `format`. */
  contentType: string;
  sizeBytes: number;
  durationSeconds: number;
  /** Hex SHA-256 of the audio bytes. */
  sha256: string;
  /**
   * Read by the sandbox only, which has no audio to understand: the patient's name it puts in its
   * made-up consultation, and whose value `FAIL` makes it fail on purpose. A real provider reads
   * nothing but the audio.
   */
  sandbox?: { patientName: string };
  /**
   * What the audio is likely to say, for a server that can be primed with text (Whisper's
   * `prompt`): a provider fits it to its own budget, or ignores it (the sandbox).
   */
  prompt?: TranscriptionPrompt;
}

export interface TranscriptionPrompt {
  /** Words the audio is likely to hold, the likeliest first (the patient's name, the species, drug names). */
  terms: readonly string[];
  /** The transcript of the audio just before this one (the previous chunk or live part), when it is held. */
  preceding?: string;
}

export interface TranscriptionProvider {
  readonly name: string;
  /**
   * What one request to the server behind this provider may carry, when it has limits: longer
   * audio is then cut into overlapping chunks (notes/processing/chunked-transcription.ts). Absent
   * for a provider that takes any audio whole (the sandbox).
   */
  readonly requestLimits?: RequestLimits;
  /** Throws ProviderError (src/providers/provider-error.ts) on failure. */
  transcribe(input: TranscriptionInput, signal: AbortSignal): Promise<Transcript>;
}
