import path from 'node:path';
import type { Config } from '../../platform/config.ts';
import { createLocalStorage } from '../../providers/storage/local.ts';
import type { AudioStorage } from '../../providers/storage/port.ts';
import { createS3Storage } from '../../providers/storage/s3.ts';

/**
 * The audio storage the configuration names (STORAGE_DRIVER): the server's Notes module and the
 * retention run (which may run in the CLI, without the module) open the same one.
 */
export function configuredStorage(config: Config): AudioStorage {
  return config.STORAGE_DRIVER === 's3'
    ? createS3Storage({
        bucket: config.S3_BUCKET ?? '',
        region: config.S3_REGION,
        endpoint: config.S3_ENDPOINT,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        prefix: config.S3_PREFIX,
      })
    : createLocalStorage(path.resolve(config.DATA_DIR, 'audio'));
}

/** Parent of the per-note directories where long audio is cut into chunks for transcription. */
export function transcriptionTempDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'tmp', 'transcription');
}
