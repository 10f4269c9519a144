import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/provider-error.ts';
import { createRulesSectioner } from '../../src/providers/sectioning/rules.ts';
import type { TranscriptionInput } from '../../src/providers/transcription/port.ts';
import { createSandboxTranscriber } from '../../src/providers/transcription/sandbox.ts';

const transcriber = createSandboxTranscriber();
const signal = () => new AbortController().signal;

function input(seed: string, patientName = 'Thor', durationSeconds = 120): TranscriptionInput {
  return {
    openAudio: () => Readable.from([Buffer.from(seed)]),
    fileName: 'consulta.mp3',
    format: 'mp3',
    contentType: 'audio/mpeg',
    sizeBytes: seed.length,
    durationSeconds,
    sha256: createHash('sha256').update(seed).digest('hex'),
    sandbox: { patientName },
  };
}

describe('sandbox transcriber', () => {
  it('gives the same transcript for the same audio and patient', async () => {
    const first = await transcriber.transcribe(input('audio-a'), signal());
    const second = await transcriber.transcribe(input('audio-a'), signal());
    expect(second).toEqual(first);
    expect(first).toMatchObject({ provider: 'sandbox', language: 'pt', durationSeconds: 120 });
    expect(first.text).toContain('Thor');
  });

  it('usually gives different transcripts for different audio, in all three styles', async () => {
    const transcripts = await Promise.all(Array.from({ length: 30 }, (_, i) => transcriber.transcribe(input(`audio-${i}`), signal())));
    expect(new Set(transcripts.map((t) => t.text)).size).toBeGreaterThanOrEqual(25);
    const headings = transcripts.filter((t) => t.text.startsWith('Anamnese:'));
    const dialogues = transcripts.filter((t) => t.text.includes('\nTutor: '));
    const plain = transcripts.filter((t) => !headings.includes(t) && !dialogues.includes(t));
    expect([headings.length, dialogues.length, plain.length].every((count) => count > 0)).toBe(true);
  });

  it('spreads ordered, non-overlapping segments over the duration that make up the text', async () => {
    for (const duration of [10, 95.5, 3600]) {
      const transcript = await transcriber.transcribe(input(`segments-${duration}`, 'Mel', duration), signal());
      const { segments } = transcript;
      expect(segments.length).toBeGreaterThan(3);
      expect(segments[0]!.start).toBe(0);
      expect(segments.at(-1)!.end).toBeLessThanOrEqual(duration);
      expect(segments.at(-1)!.end).toBeGreaterThan(duration * 0.95);
      for (const [i, segment] of segments.entries()) {
        expect(segment.end).toBeGreaterThan(segment.start);
        if (i > 0) expect(segment.start).toBeGreaterThanOrEqual(segments[i - 1]!.end);
      }
      expect(
        segments
          .map((s) => s.text)
          .join(' ')
          .replace(/\s+/g, ' '),
      ).toBe(transcript.text.replace(/\s+/g, ' '));
    }
  });

  it('reads well enough for the rules sectioner to find the clinical sections', async () => {
    const sectioner = createRulesSectioner();
    for (let i = 0; i < 20; i++) {
      const transcript = await transcriber.transcribe(input(`sections-${i}`), signal());
      const sections = await sectioner.section({ text: transcript.text, segments: transcript.segments, language: 'pt' }, signal());
      const labels = sections.map((s) => s.label);
      expect(labels, transcript.text).toEqual(
        expect.arrayContaining(['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'follow_up']),
      );
    }
  });

  it.each(['FAIL', 'fail', '  Fail '])('fails at once, not retryably, for a patient named %j', async (name) => {
    const error = await transcriber.transcribe(input('x', name), signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'SANDBOX_FORCED_FAILURE', retryable: false });
  });

  it('does not fail for names that merely contain FAIL', async () => {
    await expect(transcriber.transcribe(input('x', 'Failure'), signal())).resolves.toMatchObject({ provider: 'sandbox' });
  });

  it('stops when the signal aborts during the optional delay', async () => {
    const slow = createSandboxTranscriber({ delayMs: 10_000 });
    const controller = new AbortController();
    const pending = slow.transcribe(input('slow'), controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});
