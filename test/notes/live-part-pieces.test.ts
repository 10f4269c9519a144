import { describe, expect, it } from 'vitest';
import type { RequestLimits } from '../../src/audio/chunk-plan.ts';
import { partPieces } from '../../src/notes/live/part-requests.ts';

// How many requests one live part becomes (part-requests.ts); that the pieces' transcripts stitch
// back with every second once is shown end to end by test/notes/live.test.ts.

const limits: RequestLimits = { maxBytes: 26_000_000, maxSeconds: 1300, overlapSeconds: 4, concurrency: 6 };
const spans = (pieces: { start: number; end: number }[]) => pieces.map(({ start, end }) => [start, end]);

describe('the requests of a live part', () => {
  it('sends a part up to LIVE_PART_REQUEST_SECONDS whole', () => {
    expect(spans(partPieces(20, 320_000, { limits, pieceSeconds: 20 }))).toEqual([[0, 20]]);
    expect(spans(partPieces(12, 190_000, { limits, pieceSeconds: 20 }))).toEqual([[0, 12]]);
  });

  it('cuts a longer part into overlapping pieces of at most that length', () => {
    // A 30 s part with the 4 s before it: two pieces of 19 s sharing the overlap.
    expect(spans(partPieces(34, 540_000, { limits, pieceSeconds: 20 }))).toEqual([
      [0, 19],
      [15, 34],
    ]);
    const pieces = partPieces(64, 1_000_000, { limits, pieceSeconds: 20 });
    expect(pieces.length).toBe(4);
    for (const piece of pieces) expect(piece.end - piece.start).toBeLessThanOrEqual(19);
    for (const [i, piece] of pieces.slice(1).entries()) expect(pieces[i]!.end - piece.start).toBeCloseTo(4, 5);
  });

  it('never cuts a part into more pieces than are sent at once', () => {
    // A 600 s part: one wave of six requests, not thirty of 20 s.
    const pieces = partPieces(604, 9_600_000, { limits, pieceSeconds: 20 });
    expect(pieces.length).toBe(6);
    expect(pieces.at(-1)!.end).toBe(604);
  });

  it('with 0, sends each part whole unless the server cannot take it', () => {
    expect(spans(partPieces(604, 9_600_000, { limits, pieceSeconds: 0 }))).toEqual([[0, 604]]);
    // A server limit still applies: 600 s of wav over a 10 MB cap is cut as long audio is.
    expect(partPieces(604, 19_300_000, { limits: { ...limits, maxBytes: 10_000_000 }, pieceSeconds: 0 }).length).toBeGreaterThan(1);
  });
});
