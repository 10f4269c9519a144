import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenAiTranscriber } from '../../src/providers/transcription/openai.ts';
import type { TranscriptionInput } from '../../src/providers/transcription/port.ts';
import { lastWords, promptText } from '../../src/providers/transcription/prompt.ts';
import { json, promptOf, startFakeServer } from './fake-openai-server.ts';

// The `prompt` field as the openai provider sends it: within TRANSCRIPTION_PROMPT_MAX_CHARS, the
// terms likeliest first, the words heard before at the end, and no field at all with a budget of 0.

const server = await startFakeServer();
afterAll(() => server.close());
server.handle((_request, response) => json(response, 200, { text: 'ok', language: 'portuguese', duration: 1, segments: [] }));

const audio = Buffer.from('RIFF....WAVEfmt ');
const input = (prompt: TranscriptionInput['prompt']): TranscriptionInput => ({
  openAudio: () => Readable.from([audio]),
  fileName: 'a.wav',
  format: 'wav',
  contentType: 'audio/wav',
  sizeBytes: audio.length,
  durationSeconds: 1,
  sha256: '0'.repeat(64),
  prompt,
});

async function sentPrompt(promptMaxChars: number | undefined, prompt: TranscriptionInput['prompt']) {
  server.requests.length = 0;
  const transcriber = createOpenAiTranscriber({ baseUrl: server.baseUrl, model: 'whisper-1', timeoutMs: 5_000, promptMaxChars });
  await transcriber.transcribe(input(prompt), new AbortController().signal);
  expect(server.requests).toHaveLength(1);
  return promptOf(server.requests[0]!);
}

const TERMS = ['Thor', 'cão', 'Apoquel', 'carprofeno', 'meloxicam', 'dipirona', 'amoxicilina com clavulanato', 'tramadol'];
const BEFORE = 'o tutor relata que ele está mancando da pata traseira esquerda há uns três dias';

describe('the prompt field', () => {
  it('lists the terms in order, then the words heard before', async () => {
    expect(await sentPrompt(550, { terms: TERMS, preceding: BEFORE })).toBe(`${TERMS.join(', ')}. ${BEFORE}`);
  });

  it('keeps within the budget: the last words before (at most half), then as many terms as fit', async () => {
    const prompt = (await sentPrompt(80, { terms: TERMS, preceding: BEFORE }))!;
    expect(prompt.length).toBeLessThanOrEqual(80);
    expect(prompt).toBe('Thor, cão, Apoquel, carprofeno. pata traseira esquerda há uns três dias');
    // A term too long for what is left is skipped, a shorter one after it still sent.
    expect(await sentPrompt(30, { terms: ['Thor', 'amoxicilina com clavulanato', 'dipirona'] })).toBe('Thor, dipirona.');
  });

  it('sends each term once, case aside', async () => {
    expect(await sentPrompt(550, { terms: ['Carprofeno', 'carprofeno', ' Thor ', 'thor'] })).toBe('Carprofeno, Thor.');
  });

  it('sends no prompt field with a budget of 0, or when absent, or with nothing to say', async () => {
    expect(await sentPrompt(0, { terms: TERMS, preceding: BEFORE })).toBeNull();
    expect(await sentPrompt(undefined, { terms: TERMS })).toBeNull();
    expect(await sentPrompt(550, undefined)).toBeNull();
    expect(await sentPrompt(550, { terms: [], preceding: '  ' })).toBeNull();
  });

  it('cuts the words before at a word boundary', () => {
    expect(lastWords('um dois três quatro', 12)).toBe('três quatro');
    expect(lastWords('supercalifragilistico', 5)).toBe('');
    expect(promptText({ terms: [], preceding: 'um dois três quatro' }, 24)).toBe('três quatro');
  });
});
