import { describe, expect, it } from 'vitest';
import { type ChunkRange, planChunks } from '../../src/audio/chunk-plan.ts';
import { type ChunkTranscript, joinAtSeams, joinTexts, stitch } from '../../src/audio/stitch.ts';
import type { TranscriptSegment } from '../../src/providers/transcription/port.ts';

const limits = { maxBytes: 26_000_000, maxSeconds: 1300, overlapSeconds: 4, concurrency: 6 };

describe('planning chunks', () => {
  it('keeps audio within both limits in one request', () => {
    expect(planChunks(1200, 20_000_000, limits)).toEqual([{ index: 0, start: 0, end: 1200 }]);
    expect(planChunks(7200, 200_000_000, { ...limits, maxBytes: 0, maxSeconds: 0 })).toHaveLength(1);
  });

  it('cuts audio over a limit into overlapping chunks that each fit, a multiple of the concurrency', () => {
    for (const [seconds, bytes] of [
      [3000, 96_000_044],
      [3595, 28_800_000],
      [1500, 5_000_000],
    ] as const) {
      const chunks = planChunks(seconds, bytes, limits);
      expect(chunks.length % limits.concurrency).toBe(0);
      expect(chunks[0]!.start).toBe(0);
      expect(chunks.at(-1)!.end).toBe(seconds);
      for (const [i, chunk] of chunks.entries()) {
        expect(chunk.end - chunk.start).toBeLessThan(limits.maxSeconds);
        expect(((chunk.end - chunk.start) * bytes) / seconds).toBeLessThan(limits.maxBytes);
        if (i > 0) expect(chunks[i - 1]!.end - chunk.start).toBeCloseTo(limits.overlapSeconds, 3);
      }
    }
  });

  it('does not split into chunks shorter than two minutes just to run them in parallel', () => {
    expect(planChunks(300, 30_000_000, { ...limits, maxSeconds: 0 })).toHaveLength(2);
  });
});

/** What a server hears in `chunk` of audio where word k is spoken from second k to k + 1. */
function heard(chunk: ChunkRange, speakers?: (k: number) => string): ChunkTranscript {
  const segments: TranscriptSegment[] = [];
  for (let k = Math.floor(chunk.start); k < chunk.end; k++) {
    const start = Math.max(k, chunk.start) - chunk.start;
    const end = Math.min(k + 1, chunk.end) - chunk.start;
    // A word cut by the chunk's edge is heard as a fragment.
    const text = k >= chunk.start && k + 1 <= chunk.end ? `w${k}` : `w${k}-fragment`;
    segments.push({ start, end, text, ...(speakers ? { speaker: speakers(k) } : {}) });
  }
  return { offsetSeconds: chunk.start, text: segments.map((s) => s.text).join(' '), language: 'pt', segments };
}

describe('stitching chunk transcripts', () => {
  it('keeps every word once, in order, whole, however the edges fall', () => {
    for (const [start1, end0] of [
      [96, 100],
      [96.5, 100.5],
      [95.3, 99.3],
      [96.99, 100.99],
    ] as const) {
      const chunks = [
        { index: 0, start: 0, end: end0 },
        { index: 1, start: start1, end: 200 },
      ];
      const result = stitch(
        chunks,
        chunks.map((chunk) => heard(chunk)),
      );
      expect(result.segments.map((s) => s.text)).toEqual(Array.from({ length: 200 }, (_, k) => `w${k}`));
      expect(result.text).toBe(result.segments.map((s) => s.text).join(' '));
      for (const [i, segment] of result.segments.entries()) {
        expect(segment.start).toBeCloseTo(i, 6);
        if (i > 0) expect(segment.start).toBeGreaterThanOrEqual(result.segments[i - 1]!.end);
      }
    }
  });

  it('joins texts without segments by dropping the repeated words', () => {
    expect(joinTexts(['o cão está com vômito há três dias', 'Vômito há três dias, e perdeu o apetite'])).toBe(
      'o cão está com vômito há três dias e perdeu o apetite',
    );
    expect(joinTexts(['sem sobreposição', 'alguma aqui'])).toBe('sem sobreposição alguma aqui');
  });

  it('renames the later chunk speakers after who talks at the same time in the overlap', () => {
    const who = (k: number) => (Math.floor(k / 10) % 2 === 0 ? 'vet' : 'tutor');
    const chunks = [
      { index: 0, start: 0, end: 104 },
      { index: 1, start: 100, end: 204 },
      { index: 2, start: 200, end: 300 },
    ];
    // Each request names speakers in the order it first hears them.
    const transcripts = chunks.map((chunk) => {
      const labels = new Map<string, string>();
      return heard(chunk, (k) => {
        if (!labels.has(who(k))) labels.set(who(k), String.fromCharCode(65 + labels.size));
        return labels.get(who(k))!;
      });
    });
    // The overlaps (100-104, 200-204) hold only the vet: the tutor is matched as the one speaker left.
    const result = stitch(chunks, transcripts);
    const byTruth = new Map<string, Set<string>>();
    for (const segment of result.segments) {
      const k = Number(segment.text.slice(1));
      byTruth.set(who(k), (byTruth.get(who(k)) ?? new Set()).add(segment.speaker!));
    }
    expect([...byTruth.get('vet')!]).toEqual(['A']);
    expect([...byTruth.get('tutor')!]).toEqual(['B']);
    expect(result.text.split('\n')[0]).toBe('A: w0 w1 w2 w3 w4 w5 w6 w7 w8 w9');
    expect(result.text.split('\n')[1]!.startsWith('B: w10 ')).toBe(true);
  });

  it('gives a voice it cannot match a new label rather than guess', () => {
    const chunks = [
      { index: 0, start: 0, end: 104 },
      { index: 1, start: 100, end: 200 },
    ];
    // Chunk 0: A then B; chunk 1: its A talks in the overlap, then two voices never heard in it.
    const first = heard(chunks[0]!, (k) => (k < 50 ? 'A' : 'B'));
    const second = heard(chunks[1]!, (k) => (k < 110 ? 'A' : k < 150 ? 'B' : 'C'));
    const labels = [...new Set(stitch(chunks, [first, second]).segments.map((segment) => segment.speaker))];
    expect(labels).toEqual(['A', 'B', 'C', 'D']);
  });
});

describe('joining transcripts at seams without overlap', () => {
  const said = (segments: [number, number, string][]) => ({
    text: segments.map(([, , text]) => text).join(' '),
    language: 'pt',
    segments: segments.map(([start, end, text]) => ({ start, end, text })),
  });
  const texts = (result: { segments: TranscriptSegment[] }) => result.segments.map((segment) => segment.text);

  it('keeps once a word both sides of the seam wrote, the earlier copy, whatever its case and accents', () => {
    const before = said([
      [20, 27.5, 'o gato comeu a ração'],
      [27.6, 30, 'e depois o Cão'],
    ]);
    const after = said([
      [30, 31.8, 'cão, latiu muito'],
      [32, 35, 'e dormiu'],
    ]);
    const result = joinAtSeams([before, after], [30]);
    expect(texts(result)).toEqual(['o gato comeu a ração', 'e depois o Cão', 'latiu muito', 'e dormiu']);
    expect(result.segments[2]!.start).toBe(30);
    // A segment that was only the repeated word goes.
    expect(
      texts(
        joinAtSeams(
          [
            before,
            said([
              [30, 30.4, 'cão'],
              [30.5, 32, 'latiu'],
            ]),
          ],
          [30],
        ),
      ),
    ).toEqual(['o gato comeu a ração', 'e depois o Cão', 'latiu']);
  });

  it('leaves alone other words, words far from the seam, and seams where audio is missing', () => {
    const before = said([[27, 30, 'o cão']]);
    expect(texts(joinAtSeams([before, said([[30, 31, 'cães latem']])], [30]))).toEqual(['o cão', 'cães latem']);
    expect(texts(joinAtSeams([said([[25, 28.5, 'o cão']]), said([[30, 31, 'cão latiu']])], [30]))).toEqual(['o cão', 'cão latiu']);
    expect(texts(joinAtSeams([before, said([[31.5, 33, 'cão latiu']])], [30]))).toEqual(['o cão', 'cão latiu']);
    expect(texts(joinAtSeams([before, said([[30, 31, 'cão latiu']])], [null]))).toEqual(['o cão', 'cão latiu']);
  });

  it('joins texts without segments as joinTexts does: a single repeated word stays', () => {
    const untimed = (text: string) => ({ text, language: null, segments: [] });
    expect(joinAtSeams([untimed('o gato comeu'), untimed('comeu a ração')], [30]).text).toBe('o gato comeu comeu a ração');
    expect(joinAtSeams([untimed('o gato comeu a'), untimed('comeu a ração')], [30]).text).toBe('o gato comeu a ração');
  });
});
