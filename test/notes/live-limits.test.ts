import { describe, expect, it } from 'vitest';
import { eq } from '../../src/platform/db/drizzle.ts';
import { clinics } from '../../src/platform/db/schema/index.ts';
import { createTestApp, eventually } from '../helpers/app.ts';
import { toneClip } from '../helpers/live-parts.ts';
import { as, createClinicWithKeys, PREFIX } from '../helpers/notes.ts';

// A live note's whole recording is held to the upload limits and the clinic's quota as parts
// arrive, and a capture left idle closes itself. The sandbox transcriber (no audio heard) is enough.

const limits = await createTestApp({ env: { AUDIO_MAX_SECONDS: '70', AUDIO_MAX_BYTES: '1500000' } });
const idle = await createTestApp({ startWorkers: true, env: { LIVE_CAPTURE_IDLE_SECONDS: '3' } });

const mp3 = [await toneClip('mp3', 0, 20), await toneClip('mp3', 20, 40), await toneClip('mp3', 40, 60), await toneClip('mp3', 60, 90)];
const wav = await toneClip('wav', 0, 30);

async function clientOf(t: typeof limits) {
  const keys = await createClinicWithKeys(t.db.database);
  return {
    keys,
    create: async () =>
      (await t.app.inject({ method: 'POST', url: `${PREFIX}/notes/live`, payload: { name: 'Mel' }, headers: as(keys.editor) })).json().data
        .id as string,
    put: (id: string, n: number, bytes: Buffer) =>
      t.app.inject({
        method: 'PUT',
        url: `${PREFIX}/notes/${id}/parts/${n}`,
        payload: bytes,
        headers: { ...as(keys.editor), 'content-type': 'audio/mpeg' },
      }),
    read: async (id: string, what = '') =>
      (await t.app.inject({ method: 'GET', url: `${PREFIX}/notes/${id}${what}`, headers: as(keys.editor) })).json(),
  };
}

describe('live capture limits', async () => {
  const client = await clientOf(limits);

  it('refuses the part that would take the recording past AUDIO_MAX_SECONDS, keeping the others', async () => {
    const id = await client.create();
    expect((await client.put(id, 1, mp3[0]!)).statusCode).toBe(201);
    expect((await client.put(id, 2, mp3[1]!)).statusCode).toBe(201);
    const over = await client.put(id, 3, mp3[3]!);
    expect(over.statusCode).toBe(422);
    expect(over.json()).toMatchObject({ code: 'AUDIO_DURATION_INVALID', details: { max_duration: 70 } });
    expect(over.json().details.duration).toBeGreaterThan(70);
    expect((await client.read(id, '/parts')).meta).toMatchObject({ state: 'open', parts: 2 });
  });

  it('refuses the part that would take the recording past AUDIO_MAX_BYTES', async () => {
    const id = await client.create();
    expect((await client.put(id, 1, wav)).statusCode).toBe(201);
    const over = await client.put(id, 2, wav);
    expect(over.statusCode).toBe(413);
    expect(over.json()).toMatchObject({ code: 'AUDIO_TOO_LARGE', details: { file_size: wav.length * 2, max_size: 1_500_000 } });
  });

  it("counts parts against the clinic's quota as they arrive", async () => {
    const fresh = await clientOf(limits);
    await limits.db.database.db.update(clinics).set({ quotaMinutes: 1 }).where(eq(clinics.id, fresh.keys.clinicId));
    const id = await fresh.create();
    expect((await fresh.put(id, 1, mp3[0]!)).statusCode).toBe(201);
    expect((await fresh.put(id, 2, mp3[1]!)).statusCode).toBe(201);
    const over = await fresh.put(id, 3, mp3[2]!);
    expect(over.statusCode).toBe(403);
    expect(over.json()).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota_limit: 1 } });
    expect((await fresh.read(id, '/parts')).meta).toMatchObject({ parts: 2 });
  });
});

describe('an idle live capture', async () => {
  const client = await clientOf(idle);

  it('is completed with the parts it has and flagged capture_auto_closed', async () => {
    const id = await client.create();
    expect((await client.put(id, 1, mp3[0]!)).statusCode).toBe(201);
    const note = await eventually(async () => {
      const body = (await client.read(id)).data;
      return body.transcription_status === 'completed' ? body : null;
    }, 30_000);
    expect(note.capture).toMatchObject({ state: 'closed', parts: 1 });
    expect(note.review_flags).toContainEqual({ section: null, sentence: null, reason: 'capture_auto_closed', token: null });
    expect((await client.put(id, 2, mp3[1]!)).json().code).toBe('CAPTURE_CLOSED');
  });

  it('fails CAPTURE_ABANDONED without any part', async () => {
    const id = await client.create();
    const note = await eventually(async () => {
      const body = (await client.read(id)).data;
      return body.transcription_status === 'failed' ? body : null;
    }, 30_000);
    expect(note.failure.code).toBe('CAPTURE_ABANDONED');
    expect(note.capture).toEqual({ state: 'closed', parts: 0, seconds: 0 });
  });
});
