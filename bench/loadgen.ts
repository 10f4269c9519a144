import net from 'node:net';

// The read benchmarks' load generator, run as its own process so it never shares an event loop
// with a server it measures. `connections` keep-alive HTTP/1.1 sockets, each sending its next GET
// as soon as the previous answer is complete (no pipelining), cycling through `paths`. Requests
// finishing during the first `warmupMs` are not counted; then `durationMs` are measured.
// Raw sockets and a tiny parser (Content-Length bodies only, which is what Fastify sends for
// JSON) keep the generator's own CPU per request far below node:http's or fetch's.
// With `bodies`, each request is a `method` (PUT, POST) of a JSON body to `paths[0]` instead, the
// bodies taken in turn, so that every request can write a new record (see LoadConfig.bodies).
// Usage: node bench/loadgen.ts '<json LoadConfig>'  →  one JSON LoadResult line on stdout.

export interface LoadConfig {
  url: string;
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  method?: string;
  /**
   * JSON body templates, used in turn. In each, `{n}` becomes the request's sequence number (0, 1,
   * …: unique, for new records), `{n7}` the same as 7 digits (`{n5}` as 5), `{r}` and `{r7}` the turn's number
   * modulo `recycle` (n ÷ bodies.length; to address a fixed set of existing records).
   */
  bodies?: string[];
  recycle?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Answers by HTTP status, measured window only. */
  statuses: Record<string, number>;
  /** Every answer, warm-up and late ones included (what the server did in all). */
  answered: number;
  errors: number;
  /** CPU seconds the generator itself used (user + system, warm-up included): it shares the box. */
  cpu_s: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as LoadConfig;
const target = new URL(config.url);
const extraHeaders = Object.entries(config.headers ?? {})
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
const requests = config.paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${target.host}\r\n${extraHeaders}\r\n`, 'latin1'));
const bodies = config.bodies;
const recycle = config.recycle ?? Number.MAX_SAFE_INTEGER;
const digits7 = (value: number) => String(value % 10_000_000).padStart(7, '0');

function request(n: number): Buffer {
  if (!bodies) return requests[n % requests.length]!;
  const r = Math.floor(n / bodies.length) % recycle;
  const body = bodies[n % bodies.length]!.replace(/\{(n7|n5|n|r7|r)\}/g, (_, name: string) =>
    name === 'n' ? String(n) : name === 'n7' ? digits7(n) : name === 'n5' ? digits7(n).slice(2) : name === 'r' ? String(r) : digits7(r),
  );
  return Buffer.from(
    `${config.method ?? 'POST'} ${config.paths[0]} HTTP/1.1\r\nHost: ${target.host}\r\n${extraHeaders}` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    'utf8',
  );
}

const started = performance.now();
const measureFrom = started + config.warmupMs;
const measureUntil = measureFrom + config.durationMs;
// Latencies in µs, by 10 µs buckets up to 10 s: exact enough for percentiles, constant memory.
const BUCKET_US = 10;
const histogram = new Uint32Array(1_000_001);
let counted = 0;
let answered = 0;
let errors = 0;
let maxMs = 0;
const statuses: Record<string, number> = {};
let next = 0;
const HEADER_END = Buffer.from('\r\n\r\n');

function connection(): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
    let buffer: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    let status = 0;
    let bodyEnd = -1; // offset in buffer where the current response ends, once the head is parsed
    const send = () => {
      if (performance.now() >= measureUntil) {
        socket.end();
        resolve();
        return;
      }
      const message = request(next++);
      sentAt = performance.now();
      socket.write(message);
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        if (bodyEnd < 0) {
          const headEnd = buffer.indexOf(HEADER_END);
          if (headEnd < 0) return;
          const head = buffer.toString('latin1', 0, headEnd);
          status = Number(head.slice(9, 12));
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          if (!length) throw new Error(`response without Content-Length:\n${head}`);
          bodyEnd = headEnd + 4 + Number(length[1]);
        }
        if (buffer.length < bodyEnd) return;
        const now = performance.now();
        answered += 1;
        if (sentAt >= measureFrom && now <= measureUntil) {
          const ms = now - sentAt;
          histogram[Math.min(histogram.length - 1, Math.round((ms * 1000) / BUCKET_US))]! += 1;
          counted += 1;
          if (ms > maxMs) maxMs = ms;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        buffer = buffer.subarray(bodyEnd);
        bodyEnd = -1;
        if (buffer.length === 0) break;
      }
      send();
    });
    socket.on('error', () => {
      errors += 1;
      resolve();
    });
    socket.on('close', () => resolve());
  });
}

function percentileMs(p: number): number {
  const rank = Math.ceil((p / 100) * counted);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank && seen > 0) return (i * BUCKET_US) / 1000;
  }
  return Number.NaN;
}

await Promise.all(Array.from({ length: config.connections }, connection));
const seconds = config.durationMs / 1000;
const result: LoadResult = {
  requests: counted,
  seconds,
  rps: counted / seconds,
  p50_ms: percentileMs(50),
  p90_ms: percentileMs(90),
  p99_ms: percentileMs(99),
  max_ms: maxMs,
  statuses,
  answered,
  errors,
  cpu_s: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
