import { afterAll, expect } from 'vitest';
import { json, startFakeServer } from '../providers/fake-openai-server.ts';
import { uploadNote, waitUntilSettled } from './uploads.ts';

// Notes whose words the test chooses: a local OpenAI-compatible transcription server answers each
// upload with the consultation the test dictated last (the sandbox's are chosen by hash).

export interface Dictation {
  text: string;
  /** Timed segments; absent = one segment per sentence, 5 s each. */
  segments?: { start: number; end: number; text: string; speaker?: string }[];
}

/** The server and the environment that points the app's transcription at it. */
export async function startDictationServer() {
  const server = await startFakeServer();
  afterAll(() => server.close());
  let next: Dictation = { text: '' };
  server.handle((_request, response) => {
    const sentences = next.text.match(/[^.!?]+[.!?]*/g)?.map((sentence) => sentence.trim()) ?? [];
    const segments = next.segments ?? sentences.map((text, i) => ({ start: i * 5, end: i * 5 + 5, text }));
    json(response, 200, { text: next.text, language: 'portuguese', duration: Math.max(5, segments.length * 5), segments });
  });
  return {
    env: {
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_BASE_URL: server.baseUrl,
      TRANSCRIPTION_API_KEY: 'sk-test',
      TRANSCRIPTION_MODEL: 'whisper-1',
    },
    /** What the next upload is transcribed as. */
    dictate(dictation: Dictation) {
      next = dictation;
    },
  };
}

type Injector = Parameters<typeof uploadNote>[0];

/** Uploads a note transcribed as `dictation` and waits until it completed; its id. */
export async function dictatedNote(
  app: Injector,
  keys: { editor: string; viewer: string },
  dictationServer: Awaited<ReturnType<typeof startDictationServer>>,
  metadata: object,
  dictation: Dictation,
): Promise<string> {
  dictationServer.dictate(dictation);
  const id = await uploadNote(app, keys.editor, metadata, 'consultation.m4a');
  expect(await waitUntilSettled(app, keys.viewer, id, 30_000)).toBe('completed');
  return id;
}
