import { execFile } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { collectYoungEvery, releaseMemoryWhenIdle } from '../../src/platform/memory-release.ts';

// src/platform/memory-release.ts. The GC itself runs in a process of its own so the test runner's
// heap plays no part: after a burst of allocation that grows V8's young generation, as start-up
// does, it must shrink it back and leave no `gc` on the application's global object.
const MODULE = fileURLToPath(new URL('../../src/platform/memory-release.ts', import.meta.url));
const PROBE = `
import v8 from 'node:v8';
const { releaseMemory } = await import(${JSON.stringify(MODULE)});
const youngGeneration = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
let kept = [];
for (let i = 0; i < 2_000_000; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 200_000) kept = []; }
const before = youngGeneration();
releaseMemory();
console.log(JSON.stringify({ before, after: youngGeneration(), gcOnGlobal: typeof globalThis.gc }));
`;

describe('releasing memory', () => {
  it('shrinks the young generation that a burst of allocation grew, without exposing gc globally', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    const { before, after, gcOnGlobal } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(before).toBeGreaterThan(16 * 2 ** 20);
    expect(after).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(gcOnGlobal).toBe('undefined');
  }, 60_000);
});

// An upload's body reaches the route as Buffers whose memory lies outside V8's heap, allocated
// one after another and dropped at once. Without scavenges in between they start full marks of the
// heap; with one every 32 MiB they do not (docs/benchmarks.md, uploads).
const STREAM_PROBE = (collect: boolean) => `
import { constants, PerformanceObserver } from 'node:perf_hooks';
const { collectYoungEvery, releaseMemory } = await import(${JSON.stringify(MODULE)});
// A live heap like a server's (~25 MB), settled in the old generation before the stream starts.
const retained = Array.from({ length: 300_000 }, (_, i) => ({ i, text: \`x\${i}\` }));
releaseMemory();
const counts = { major: 0, minor: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) counts.major++;
    else counts.minor++;
  }
}).observe({ entryTypes: ['gc'] });
const passed = ${collect} ? collectYoungEvery(32 * 2 ** 20) : () => {};
let sink = 0;
// One chunk per turn of the event loop, as a socket delivers them (V8 frees swept Buffers in between).
for (let i = 0; i < 8192; i++) {
  const chunk = Buffer.allocUnsafeSlow(64 * 1024);
  chunk[0] = i;
  sink += chunk[0];
  passed(chunk.length);
  await new Promise((resolve) => setImmediate(resolve));
}
await new Promise((resolve) => setTimeout(resolve, 50));
console.log(JSON.stringify({ ...counts, sink, kept: retained.length }));
`;

describe('a young-generation GC every so many streamed bytes', () => {
  async function stream(collect: boolean) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', STREAM_PROBE(collect)], {
      encoding: 'utf8',
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as { major: number; minor: number };
  }

  it('keeps 512 MiB of short-lived Buffers from starting full GCs', async () => {
    const without = await stream(false);
    const withCollection = await stream(true);
    // Without: one full GC per 64 MB of them (V8's external-memory limit): 5-8 here. With: the one
    // that the heap's own growth starts, whatever the bytes, and on a loaded machine (CI, both
    // cores busy) sometimes a second that V8 starts on its own schedule.
    expect(without.major).toBeGreaterThanOrEqual(4);
    expect(withCollection.major).toBeLessThanOrEqual(2);
    expect(withCollection.minor).toBeGreaterThanOrEqual(16);
  }, 60_000);

  it('collects once each time the bytes passed reach the threshold, counting across calls', () => {
    const collections: number[] = [];
    const passed = collectYoungEvery(100, () => collections.push(1));
    passed(60);
    expect(collections).toHaveLength(0);
    passed(40);
    expect(collections).toHaveLength(1);
    for (let i = 0; i < 10; i++) passed(30);
    expect(collections).toHaveLength(3);
  });
});

describe('releasing memory when the server goes quiet', () => {
  const server = createServer((_request, response) => response.end('ok'));
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  const INTERVAL = 100;
  async function watch() {
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const releases: number[] = [];
    let heap = 100;
    stop = releaseMemoryWhenIdle(server, {
      intervalMs: INTERVAL,
      quietRequests: 2,
      quietIntervals: 3,
      grownBytes: 50,
      release: () => releases.push(Date.now()),
      heapBytes: () => heap,
    });
    return { releases, grow: (to: number) => (heap = to) };
  }
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      request({ port, host: '127.0.0.1', path: '/' }, (response) => response.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
  async function until(condition: () => boolean, timeoutMs = 3_000) {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await sleep(10);
    expect(condition()).toBe(true);
  }
  /** Requests back to back for `ms`: many per interval. */
  async function busy(ms: number) {
    const until = Date.now() + ms;
    while (Date.now() < until) await get();
  }

  it('releases at the first quiet interval after start-up, then not again while the heap has not grown', async () => {
    const { releases } = await watch();
    await until(() => releases.length === 1);
    await sleep(INTERVAL * 6);
    expect(releases).toHaveLength(1);
  });

  it('after the heap grew, waits while requests flow and releases once enough quiet intervals followed', async () => {
    const { releases, grow } = await watch();
    await until(() => releases.length === 1);
    grow(200);
    await busy(INTERVAL * 6);
    expect(releases).toHaveLength(1);
    await sleep(INTERVAL * 1.2);
    expect(releases).toHaveLength(1); // one quiet interval is not enough after load
    await until(() => releases.length === 2);
  });

  it('counts a trickle of requests (health checks) as quiet', async () => {
    const { releases, grow } = await watch();
    await until(() => releases.length === 1);
    grow(200);
    for (let i = 0; i < 6; i++) {
      await get();
      await sleep(INTERVAL);
    }
    expect(releases).toHaveLength(2);
  });

  it('stops listening and checking when stopped', async () => {
    const { releases } = await watch();
    stop!();
    stop = undefined;
    await sleep(INTERVAL * 3);
    expect(releases).toHaveLength(0);
    expect(server.listenerCount('request')).toBe(1);
  });
});
