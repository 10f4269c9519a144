import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/** Parent of the per-note directories where long audio is cut into chunks for transcription. */
export function transcriptionTempDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'tmp', 'transcription');
}

/**
 * Every place under `DATA_DIR/tmp` where the Notes tree keeps audio for a while (docs/operations.md,
 * "Temporary files"): what a request receives before it is stored, and what a job copies out of
 * storage to send or join. Each file or directory belongs to one request or one job run, which
 * removes it when it ends; a killed process leaves it behind, for the sweep.
 */
export interface NotesTempDirs {
  /** Uploads being received (`*.upload`, upload/receive-upload.ts). */
  uploads: string;
  /** Live parts being received (`{note_id}-{uuid}.part`, live/receive-part.ts). */
  parts: string;
  /** A live part's requests and the joining of a live recording (`{note_id}-…/`, live/). */
  live: string;
  /** Long audio cut into chunks (`{note_id}/`, processing/chunked-transcription.ts). */
  transcription: string;
}

export function notesTempDirs(config: Pick<Config, 'DATA_DIR'>): NotesTempDirs {
  const tmp = path.resolve(config.DATA_DIR, 'tmp');
  return { uploads: tmp, parts: path.join(tmp, 'parts'), live: path.join(tmp, 'live'), transcription: transcriptionTempDir(config) };
}

/** The longest a job run may hold its files: pg-boss hands a job on after its expiry (platform/jobs.ts, 900 s). */
const JOB_RUN_SECONDS = 900;

/**
 * How old a temporary file must be before the sweep removes it: twice the longest a request
 * (REQUEST_TIMEOUT_MS) or a job run (TRANSCRIPTION_TIMEOUT_SECONDS, the queue's 900 s expiry) may
 * hold it, plus a minute. Processes sharing DATA_DIR never see each other's requests and jobs: age
 * is the only safe sign that the owner is dead.
 */
export function staleTempSeconds(config: Pick<Config, 'REQUEST_TIMEOUT_MS' | 'TRANSCRIPTION_TIMEOUT_SECONDS'>): number {
  return Math.max(config.REQUEST_TIMEOUT_MS / 1000, config.TRANSCRIPTION_TIMEOUT_SECONDS, JOB_RUN_SECONDS) * 2 + 60;
}

/** What the sweep looks at in each directory: only names the Notes tree writes there. */
const SWEPT: [keyof NotesTempDirs, (name: string) => boolean][] = [
  ['uploads', (name) => name.endsWith('.upload')],
  ['parts', (name) => name.endsWith('.part')],
  ['live', () => true],
  ['transcription', () => true],
];

/**
 * Removes every temporary file or directory whose last change (the newest in a directory) is older
 * than `olderThanSeconds`; returns how many went. Entries that vanish meanwhile are fine.
 */
export async function sweepTempFiles(dirs: NotesTempDirs, olderThanSeconds: number, now = Date.now()): Promise<number> {
  const before = now - olderThanSeconds * 1000;
  let removed = 0;
  for (const [which, ours] of SWEPT) {
    const names = await readdir(dirs[which]).catch(() => [] as string[]);
    for (const name of names.filter(ours)) {
      const entry = path.join(dirs[which], name);
      const changed = await lastChange(entry);
      if (changed === null || changed >= before) continue;
      await rm(entry, { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}

/** The newest modification time of a file, or of a directory and everything in it; null when gone. */
async function lastChange(entry: string): Promise<number | null> {
  const info = await stat(entry).catch(() => null);
  if (!info) return null;
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of await readdir(entry, { recursive: true }).catch(() => [] as string[])) {
    const inner = await stat(path.join(entry, name)).catch(() => null);
    if (inner) newest = Math.max(newest, inner.mtimeMs);
  }
  return newest;
}

/** A note's temporary files, whatever their age: what its erasure removes (erasure/purge-files.ts). */
export async function removeNoteTempFiles(dirs: NotesTempDirs, noteId: string): Promise<void> {
  await rm(path.join(dirs.transcription, noteId), { recursive: true, force: true });
  for (const dir of [dirs.live, dirs.parts]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((one) => one.startsWith(`${noteId}-`))) {
      await rm(path.join(dir, name), { recursive: true, force: true });
    }
  }
}

/** How often each process sweeps, after the sweep at its start. */
const SWEEP_EVERY_MS = 3_600_000;

/**
 * Sweeps the Notes tree's temporary files at start-up and then hourly, in every process (API and
 * worker: each holds some). Never fails: a sweep that cannot read or remove something logs it.
 */
export class TempFileSweeper {
  private timer: NodeJS.Timeout | undefined;
  private readonly dirs: NotesTempDirs;
  private readonly olderThanSeconds: number;
  private readonly logger: Pick<Logger, 'info' | 'warn'>;

  constructor(dirs: NotesTempDirs, olderThanSeconds: number, logger: Pick<Logger, 'info' | 'warn'>) {
    this.dirs = dirs;
    this.olderThanSeconds = olderThanSeconds;
    this.logger = logger;
  }

  async sweep(): Promise<number> {
    try {
      const removed = await sweepTempFiles(this.dirs, this.olderThanSeconds);
      if (removed > 0) this.logger.info({ removed, older_than_seconds: this.olderThanSeconds }, 'stale temporary files removed');
      return removed;
    } catch (error) {
      this.logger.warn({ err: error }, 'temporary files not swept');
      return 0;
    }
  }

  async start(): Promise<void> {
    await this.sweep();
    this.timer ??= setInterval(() => void this.sweep(), SWEEP_EVERY_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
