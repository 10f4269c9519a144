import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { AudioStorage } from './port.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2, ...); omitted for AWS itself. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted S3 servers need. */
  forcePathStyle: boolean;
  /** Key prefix inside the bucket, e.g. `audio/`. */
  prefix?: string;
}

/**
 * Audio in an S3-compatible bucket, so several app machines share it. Uploads stream in parts.
 * The AWS SDK (~35 MB of RSS) is loaded on first use: a local-disk deployment never loads it.
 */
export function createS3Storage(options: S3StorageOptions): AudioStorage {
  let loaded: ReturnType<typeof loadSdk> | undefined;
  const sdk = () => {
    loaded ??= loadSdk(options);
    return loaded;
  };
  const objectKey = (key: string) => `${options.prefix ?? ''}${key}`;
  return {
    name: 's3',
    async putFile(key, localPath) {
      // Multipart upload from a file stream: memory stays at a few parts whatever the size.
      const { client, Upload } = await sdk();
      const upload = new Upload({
        client,
        params: { Bucket: options.bucket, Key: objectKey(key), Body: createReadStream(localPath) },
        queueSize: 2,
        partSize: 8 * 1024 * 1024,
      });
      await upload.done();
      await rm(localPath, { force: true });
    },
    open(key, range): Readable {
      // The interface hands out a stream at once; the object's body is piped in when it arrives.
      // A range is asked of S3 itself, so only those bytes travel.
      const output = new PassThrough();
      const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
      sdk()
        .then(({ client, GetObjectCommand }) => client.send(new GetObjectCommand({ Bucket: options.bucket, Key: objectKey(key), Range })))
        .then((object) => {
          const body = object.Body as Readable | undefined;
          if (!body) throw new Error(`empty object ${key}`);
          body.on('error', (error) => output.destroy(error));
          body.pipe(output);
        })
        .catch((error: Error) => output.destroy(error));
      return output;
    },
    async delete(key) {
      const { client, DeleteObjectCommand } = await sdk();
      await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
    },
    async exists(key) {
      const { client, HeadObjectCommand } = await sdk();
      try {
        await client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
        return true;
      } catch (error) {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw error;
      }
    },
  };
}

async function loadSdk(options: S3StorageOptions) {
  const [{ DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client }, { Upload }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
  ]);
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
  });
  return { client, Upload, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand };
}
