import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';

// The upload baseline: the least a Fastify + @fastify/multipart route can do with an upload (stream
// the file part to disk), run as its own process so its memory is measured like the server's.
// Usage: node bench/bare-upload-server.ts <dir> <maxBytes>

const [dir, maxBytes] = [process.argv[2]!, Number(process.argv[3])];
const app = Fastify({ logger: false });
await app.register(multipart);

app.post('/upload', async (request, reply) => {
  let bytes = 0;
  for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
    if (part.type !== 'file') continue;
    await pipeline(part.file, createWriteStream(path.join(dir, `${randomUUID()}.upload`)));
    bytes = part.file.bytesRead;
  }
  return reply.code(201).send({ bytes });
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
