import { PREFIX } from './notes.ts';
import { fixture } from './uploads.ts';

// The live capture's two first steps, as most live tests take them: a note open for parts, and a part.

interface Injector {
  inject(options: { method: 'POST' | 'PUT'; url: string; payload?: unknown; headers: Record<string, string> }): Promise<{
    statusCode: number;
    body: string;
    json(): any;
  }>;
}

/** A live note of the key's clinic, open for parts: its id. */
export async function createLiveNote(app: Injector, key: string, name: string): Promise<string> {
  const created = await app.inject({ method: 'POST', url: `${PREFIX}/notes/live`, headers: { 'x-api-key': key }, payload: { name } });
  if (created.statusCode !== 201) throw new Error(`POST /notes/live answered ${created.statusCode}: ${created.body}`);
  return created.json().data.id as string;
}

/** Part `n` of a live note (a WAV fixture unless `audio` says otherwise), answered as the route answers it. */
export function putPart(
  app: Injector,
  key: string,
  noteId: string,
  n: number,
  audio = { bytes: fixture('consultation.wav'), type: 'audio/wav' },
) {
  return app.inject({
    method: 'PUT',
    url: `${PREFIX}/notes/${noteId}/parts/${n}`,
    headers: { 'x-api-key': key, 'content-type': audio.type },
    payload: audio.bytes,
  });
}
