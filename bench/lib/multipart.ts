import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { Readable } from 'node:stream';

export interface UploadRequest {
  url: string;
  filePath: string;
  fileName: string;
  contentType: string;
  /** Text parts sent before the file, as a browser or SDK would. */
  fields?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface UploadResponse {
  status: number;
  body: string;
  /** Milliseconds from the first byte sent to the last byte of the response. */
  ms: number;
  /** Size of the file part alone. */
  fileBytes: number;
}

/**
 * POSTs a file as multipart/form-data, streamed from disk inside a hand-written envelope with an
 * exact Content-Length: the client holds a few 256 KiB chunks at a time, whatever the file size.
 */
export async function uploadFile(request: UploadRequest): Promise<UploadResponse> {
  const boundary = `----vetflow-bench-${randomBytes(12).toString('hex')}`;
  let preamble = '';
  for (const [name, value] of Object.entries(request.fields ?? {})) {
    preamble += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  preamble +=
    `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="${request.fileName}"\r\n` +
    `Content-Type: ${request.contentType}\r\n\r\n`;
  const head = Buffer.from(preamble);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const fileBytes = (await stat(request.filePath)).size;

  async function* envelope() {
    yield head;
    yield* createReadStream(request.filePath, { highWaterMark: 256 * 1024 });
    yield tail;
  }

  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(request.url, {
      method: 'POST',
      agent: false,
      headers: {
        ...request.headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + fileBytes + tail.length),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started, fileBytes }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    // An early answer (413, 401) may close the socket mid-body: the response above still settles it.
    Readable.from(envelope(), { objectMode: false }).pipe(req);
  });
}
