import path from 'node:path';
import type { Config } from '../../platform/config.ts';

/** Parent of the per-note directories where long audio is cut into chunks for transcription. */
export function transcriptionTempDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'tmp', 'transcription');
}
