import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, eventually } from '../helpers/app.ts';
import { toneParts } from '../helpers/live-parts.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import type { ToneFormat } from '../providers/tone-audio.ts';

// A live capture whose format changes at every part boundary, each boundary cutting a word in two,
// against a fake server that behaves as a real model at the edges of its audio: the half word it
// hears at the start or the end is answered whole, timed where its half is (`cutWords`). Each side
// of such a boundary then names the cut word (docs/notes-live.md, "Overlap and stitch at part
// boundaries"): it must be kept once, in the transcript and in the sections.

const server = await startFakeSpeechServer({ msPerAudioSecond: 3, cutWords: true });
afterAll(() => server.close());
const { app, db } = await createTestApp({
  startWorkers: true,
  env: { TRANSCRIPTION_PROVIDER: 'openai', TRANSCRIPTION_BASE_URL: server.baseUrl, TRANSCRIPTION_RETRY_DELAY_SECONDS: '1' },
});
const clinic = await createClinicWithKeys(db.database);

const read = async (id: string, what = '') =>
  (await app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}${what}`, headers: as(clinic.viewer) })).json();
const words = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `w${from + k}`);

// 40 parts of about 30 s (1200 s) in m4a, mp3, wav and aac in turn: every boundary is a change of
// format, and every one falls 0.3 s into a second, in the middle of that second's tones (its
// sync and first bits before the cut, its last bits after), so both sides hear part of the word.
const FORMATS: ToneFormat[] = ['m4a', 'mp3', 'wav', 'aac'];
const SECONDS = 1200;
const boundaries = [0, ...Array.from({ length: 39 }, (_, i) => 30 * (i + 1) + 0.3), SECONDS];
const parts = await toneParts(boundaries, (index) => FORMATS[index % FORMATS.length]!, SECONDS);

describe('a live note whose format changes at every part', () => {
  it('keeps a word cut at each change of format once, in order, in the transcript and the sections', async () => {
    const created = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/live`,
      payload: { name: 'Formatos' },
      headers: as(clinic.editor),
    });
    const id = created.json().data.id;
    for (const [i, bytes] of parts.entries()) {
      const response = await app.inject({
        method: 'PUT',
        url: `${PREFIX}/notes/${id}/parts/${i + 1}`,
        payload: bytes,
        headers: { ...as(clinic.editor), 'content-type': 'application/octet-stream' },
      });
      expect(response.statusCode, `part ${i + 1}: ${response.body}`).toBe(201);
    }
    const done = await app.inject({
      method: 'POST',
      url: `${PREFIX}/notes/${id}/complete`,
      payload: { parts: parts.length },
      headers: as(clinic.editor),
    });
    expect(done.statusCode, done.body).toBe(202);
    const status = await eventually(
      async () => {
        const now = (await read(id, '/status')).status;
        return now === 'completed' || now === 'failed' ? now : null;
      },
      240_000,
      200,
    );
    expect(status).toBe('completed');

    // The server heard each boundary's word cut from both sides, and named it in both answers.
    const cutWords = boundaries.slice(1, -1).map((at) => Math.floor(at));
    const answeredCut = server.requests.flatMap((request) => request.cut);
    for (const second of cutWords) expect(answeredCut.filter((one) => one === second).length, `w${second}`).toBeGreaterThanOrEqual(2);
    const transcript = (await read(id, '/transcription')).data;
    const heard: string[] = transcript.text.split(' ');
    const doubled = heard.filter((word, i) => heard.indexOf(word) !== i);
    expect(doubled, 'doubled words').toEqual([]);
    expect(heard).toEqual(words(0, SECONDS));
    for (const second of cutWords) expect(heard.filter((one) => one === `w${second}`).length, `w${second}`).toBe(1);
    for (const segment of transcript.segments as { start: number; text: string }[]) {
      // Recording times (the parts joined in order), within a codec's priming delay.
      expect(Math.abs(segment.start - Number(segment.text.slice(1))), `${segment.text} at ${segment.start}`).toBeLessThan(0.5);
    }
    const note = (await read(id)).data;
    const inSections = (note.note_sections as { content: string }[]).flatMap((section) => section.content.match(/\bw\d+\b/g) ?? []);
    expect(inSections.filter((word, i) => inSections.indexOf(word) !== i)).toEqual([]);
  }, 300_000);
});
