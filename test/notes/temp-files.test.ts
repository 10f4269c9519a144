import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { notesTempDirs, staleTempSeconds, sweepTempFiles } from '../../src/notes/processing/temp-dir.ts';
import { createTestApp } from '../helpers/app.ts';
import { createLiveNote, putPart } from '../helpers/live-notes.ts';
import { createClinicWithKeys, PREFIX } from '../helpers/notes.ts';

// Audio a killed process left in DATA_DIR/tmp (an upload or a live part being received, a live
// part's request or join, long audio's chunks) is swept when a process starts, and hourly, once it
// is older than any request or job run could be (so a file another process is still writing is
// kept); deleting a note removes its temporary files at once, whatever their age.

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-temp-sweep-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const dirs = notesTempDirs({ DATA_DIR: dataDir });
const longAgo = new Date(Date.now() - 2 * 86_400_000);

/** A file, or a directory holding one, under `dir`; `old` sets every mtime two days back. */
function leave(dir: string, name: string, { old, directory = false }: { old: boolean; directory?: boolean }): string {
  const entry = path.join(dir, name);
  mkdirSync(directory ? entry : dir, { recursive: true });
  const file = directory ? path.join(entry, 'part.wav') : entry;
  writeFileSync(file, 'RIFF');
  if (old) {
    utimesSync(file, longAgo, longAgo);
    if (directory) utimesSync(entry, longAgo, longAgo);
  }
  return entry;
}
function leaveEverywhere(old: boolean, noteId: string = randomUUID()) {
  return [
    leave(dirs.uploads, `${randomUUID()}.upload`, { old }),
    leave(dirs.parts, `${noteId}-${randomUUID()}.part`, { old }),
    leave(dirs.live, `${noteId}-3-4242-${Date.now()}`, { old, directory: true }),
    leave(dirs.live, `${noteId}-join-4242`, { old, directory: true }),
    leave(dirs.transcription, noteId, { old, directory: true }),
  ];
}

const stale = leaveEverywhere(true);
const fresh = leaveEverywhere(false);
// A directory made long ago whose job still writes in it is not stale.
const busy = leave(dirs.live, `${randomUUID()}-1-4242-1`, { old: true, directory: true });
writeFileSync(path.join(busy, 'joined.wav'), 'RIFF');
// Not ours: left alone whatever its age.
const foreign = leave(dirs.uploads, 'operator-notes.txt', { old: true });

const { app, db, config } = await createTestApp({ env: { DATA_DIR: dataDir } });
const clinic = await createClinicWithKeys(db.database);

describe('temporary files', () => {
  it('left by a killed process are swept at start-up; fresh ones and files not ours are kept', () => {
    for (const entry of stale) expect(existsSync(entry), entry).toBe(false);
    for (const entry of [...fresh, busy, foreign]) expect(existsSync(entry), entry).toBe(true);
  });

  it('are swept only past the longest request or job run, twice over', async () => {
    expect(staleTempSeconds(config)).toBeGreaterThanOrEqual(2 * Math.max(config.REQUEST_TIMEOUT_MS / 1000, 900));
    const entries = leaveEverywhere(false);
    // Ten minutes later they are still within the bound (about half an hour by default); a day later they are not.
    expect(await sweepTempFiles(dirs, staleTempSeconds(config), Date.now() + 600_000)).toBe(0);
    expect(await sweepTempFiles(dirs, staleTempSeconds(config), Date.now() + 86_400_000)).toBeGreaterThanOrEqual(entries.length);
    for (const entry of entries) expect(existsSync(entry), entry).toBe(false);
  });

  it("of a note go with the note's deletion, whatever their age", async () => {
    const noteId = await createLiveNote(app, clinic.editor, 'Temporários');
    const part = await putPart(app, clinic.editor, noteId, 1);
    expect(part.statusCode, part.body).toBe(201);
    const own = leaveEverywhere(false, noteId).slice(1);
    const others = leaveEverywhere(false).slice(1);

    const deleted = await app.inject({ method: 'DELETE', url: `${PREFIX}/notes/${noteId}`, headers: { 'x-api-key': clinic.admin } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    for (const entry of own) expect(existsSync(entry), entry).toBe(false);
    for (const entry of others) expect(existsSync(entry), entry).toBe(true);
  });
});
