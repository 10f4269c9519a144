// The `openai` transcriber: any OpenAI-compatible `POST {baseUrl}/audio/transcriptions` server
// (OpenAI, Groq, speaches/faster-whisper, whisper.cpp server). The audio is streamed, never
// loaded whole into memory.

import { z } from 'zod';
import type { RequestLimits } from '../../audio/chunk-plan.ts';
import { segmentsText } from '../../audio/stitch.ts';
import { authorization, endpoint, errorCodes, type ProviderResponse, redact, send, serverMessage, statusError } from '../http.ts';
import { ProviderError } from '../provider-error.ts';
import { postFile } from './file-upload.ts';
import { AudioReadError, multipartBody, multipartEnvelope } from './multipart.ts';
import type { Transcript, TranscriptionInput, TranscriptionProvider } from './port.ts';
import { promptText } from './prompt.ts';

export interface OpenAiTranscriberOptions {
  /** Ends in `/v1`, as in the OpenAI SDKs, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** ISO 639-1 hint for the model; default `pt`. */
  language?: string;
  timeoutMs: number;
  /** Ask for speaker labels: `response_format=diarized_json` (OpenAI `gpt-4o-transcribe-diarize`). */
  diarize?: boolean;
  /** What one request may carry (TRANSCRIPTION_MAX_REQUEST_*): longer audio is sent in chunks. */
  requestLimits?: RequestLimits;
  /**
   * TRANSCRIPTION_PROMPT_MAX_CHARS: the most characters of `prompt` sent (prompt.ts); 0 = never
   * send one (a server that refuses the field). Absent = 0.
   */
  promptMaxChars?: number;
}

const codes = errorCodes('TRANSCRIPTION');
const serverName = 'transcription server';

const VerboseResponse = z.object({
  text: z.string(),
  language: z.string().nullish(),
  duration: z.number().nullish(),
  segments: z
    .array(z.object({ start: z.number(), end: z.number(), text: z.string(), speaker: z.union([z.string(), z.number()]).nullish() }))
    .nullish(),
});

// verbose_json names the language in English ("portuguese"); the port wants ISO 639-1.
const LANGUAGE_CODES: Record<string, string> = {
  portuguese: 'pt',
  english: 'en',
  spanish: 'es',
  french: 'fr',
  german: 'de',
  italian: 'it',
};

function languageCode(reported: string | null | undefined, requested: string): string | null {
  if (!reported) return requested;
  const lower = reported.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(lower)) return lower;
  return LANGUAGE_CODES[lower] ?? null;
}

type ResponseFormat = 'verbose_json' | 'diarized_json' | 'json';

/** Some servers (and older whisper.cpp builds) only speak `json`; they say so with a 400. */
function rejectsFormat(response: ProviderResponse): boolean {
  return response.status === 400 && /response_format|verbose_json|diarized_json/i.test(serverMessage(response.body));
}

export function createOpenAiTranscriber(options: OpenAiTranscriberOptions): TranscriptionProvider {
  const language = options.language ?? 'pt';
  const secrets = [options.apiKey];
  /** The server refused the richer format once (gpt-4o-transcribe, older whisper.cpp): ask for `json`. */
  let jsonOnly = false;

  // A diarizing model refuses audio over 30 s unless the server may cut it at silences itself.
  const formatFields = (format: ResponseFormat): Record<string, string> =>
    format === 'diarized_json' ? { response_format: format, chunking_strategy: 'auto' } : { response_format: format };

  function audioReadFailure(cause: unknown): ProviderError | null {
    return cause instanceof AudioReadError
      ? new ProviderError('TRANSCRIPTION_AUDIO_UNREADABLE', `Could not read the audio: ${redact(cause.message, secrets)}`, {
          retryable: !cause.sizeMismatch,
          cause,
        })
      : null;
  }

  async function request(input: TranscriptionInput, responseFormat: ResponseFormat, signal: AbortSignal) {
    // OpenAI's diarizing model takes no prompt.
    const prompt = responseFormat === 'diarized_json' ? null : promptText(input.prompt, options.promptMaxChars ?? 0);
    const fields = { model: options.model, language, ...formatFields(responseFormat), ...(prompt ? { prompt } : {}) };
    // The server infers the codec from the extension; the patient's file name is not its business.
    const file = { fieldName: 'file', fileName: `audio.${input.format}`, contentType: input.contentType };
    return send({
      url: endpoint(options.baseUrl, 'audio/transcriptions'),
      init: (requestSignal) => {
        const { audioFile } = input;
        if (audioFile) {
          const upload = {
            url: endpoint(options.baseUrl, 'audio/transcriptions'),
            headers: authorization(options.apiKey),
            envelope: multipartEnvelope(fields, file),
            file: audioFile,
            sizeBytes: input.sizeBytes,
          };
          return { send: () => postFile(upload, requestSignal) };
        }
        const multipart = multipartBody(fields, { ...file, sizeBytes: input.sizeBytes, open: input.openAudio }, requestSignal);
        return {
          method: 'POST',
          headers: {
            ...authorization(options.apiKey),
            'content-type': multipart.contentType,
            'content-length': String(multipart.contentLength),
          },
          body: multipart.body,
          duplex: 'half',
        };
      },
      timeoutMs: options.timeoutMs,
      signal,
      codes,
      serverName,
      secrets,
      describeBodyFailure: audioReadFailure,
    });
  }

  function parse(response: ProviderResponse): z.infer<typeof VerboseResponse> {
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    const parsed = VerboseResponse.safeParse(json);
    if (!parsed.success) {
      throw new ProviderError(
        'TRANSCRIPTION_INVALID_RESPONSE',
        'The transcription server answered with something other than a transcript',
        {
          retryable: false,
        },
      );
    }
    return parsed.data;
  }

  return {
    name: 'openai',
    ...(options.requestLimits ? { requestLimits: options.requestLimits } : {}),
    async transcribe(input, signal): Promise<Transcript> {
      // An already-aborted signal is handled by send(), like an abort in flight.
      let response = await request(input, jsonOnly ? 'json' : options.diarize ? 'diarized_json' : 'verbose_json', signal);
      if (!jsonOnly && rejectsFormat(response)) {
        // Remembered: the chunks of a long note would otherwise each be uploaded twice.
        jsonOnly = true;
        response = await request(input, 'json', signal);
      }
      if (response.status < 200 || response.status >= 300) throw statusError(response, { codes, serverName, secrets });

      const body = parse(response);
      const segments = (body.segments ?? [])
        .map((segment) => ({
          start: segment.start,
          end: segment.end,
          text: segment.text.trim(),
          ...(segment.speaker != null && segment.speaker !== '' ? { speaker: String(segment.speaker) } : {}),
        }))
        .filter((segment) => segment.text !== '');
      return {
        // With speakers, the text says who speaks: one "A: ..." line per turn.
        text: segments.some((segment) => segment.speaker) ? segmentsText(segments) : body.text.trim(),
        language: languageCode(body.language, language),
        durationSeconds: body.duration ?? input.durationSeconds,
        segments,
        provider: 'openai',
        model: options.model,
      };
    },
  };
}
