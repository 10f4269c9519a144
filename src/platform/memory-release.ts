import type { Server } from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';

type GcFunction = (options: { type: 'major' | 'minor'; execution: 'sync'; flavor?: 'last-resort' }) => void;

let gc: GcFunction | undefined;

/**
 * `gc` is not on the global object without `--expose-gc`; setting the flag at run time exposes it
 * in contexts created afterwards, so it is taken from a fresh `vm` context and never leaks into
 * the application's own global scope.
 */
function exposedGc(): GcFunction {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as GcFunction;
  }
  return gc;
}

/**
 * One memory-reducing full GC: V8 shrinks the young generation back to 1 MiB and the old
 * generation's pages to what is live, and gives the rest back to the system.
 *
 * Loading the code, or a burst of load, makes V8 grow the young generation to its maximum
 * (2 × 32 MiB semi-spaces here) and the old generation well beyond what stays live; V8 shrinks them
 * only in a GC that is asked to reduce memory, which its own memory reducer runs anywhere from
 * ~10 s to minutes after the load has stopped (docs/benchmarks.md). Unlike
 * `--max-semi-space-size`, nothing is capped: the heap grows back as the next load needs it. One
 * pause of ~30-40 ms.
 */
export function releaseMemory(): void {
  exposedGc()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** One young-generation GC (a scavenge): ~1 ms, whatever the size of the old generation. */
export function collectYoungGeneration(): void {
  exposedGc()({ type: 'minor', execution: 'sync' });
}

/**
 * For code that streams bytes through short-lived Buffers (an upload's body): returns a function
 * to call with each chunk's size, which runs a young-generation GC once `everyBytes` have passed
 * (counted across all callers of the returned function).
 *
 * Why: Node's HTTP parser copies every piece of a request body into a Buffer of its own, whose
 * memory lies outside V8's heap. V8 frees such a Buffer only in a GC, and its young-generation
 * GCs run when JavaScript objects fill the young generation, which streaming to disk barely does.
 * So the dead Buffers pile up until V8's external-memory limit (64 MB over what the last full GC
 * left), and that starts a full, incremental mark of the whole heap, with a marking step on every
 * further allocation until it ends: ~100-400 ms of CPU per 100 MB upload in a server whose live heap
 * is ~50 MB (ROLE=all), about as much as receiving the bytes. A scavenge frees the young dead
 * Buffers at the cost of the few live young objects, so calling one before the limit is reached
 * keeps the full marks away (docs/benchmarks.md, uploads).
 */
export function collectYoungEvery(everyBytes: number, collect: () => void = collectYoungGeneration): (bytes: number) => void {
  let passed = 0;
  return (bytes) => {
    passed += bytes;
    if (passed < everyBytes) return;
    passed = 0;
    collect();
  };
}

/**
 * The process's one count of streamed request body bytes (uploads, live parts), each parser
 * calling it with every chunk: half of V8's 64 MB external-memory allowance between scavenges, and
 * one counter for every body of the process, so eight at once do not scavenge eight times as often.
 */
export const requestBodyBytesPassed = collectYoungEvery(32 * 1024 * 1024);

/**
 * Lets V8's old generation grow to twice what a full GC left live before the next full GC starts,
 * instead of V8's own factor, which it sets as low as ~1.15 after a memory-reducing GC: V8 also
 * starts a full mark whenever the old generation's headroom is smaller than the young generation
 * could promote (2 × up to 16-32 MiB), so with ~53 MB live (ROLE=all) and ~9 MB of headroom it
 * marked the whole heap every 0.2-0.5 s through an upload, whatever the upload allocated
 * (docs/benchmarks.md, uploads). Read by V8 each time it sets its limits, so it applies from the
 * next GC on. Memory-reducing GCs still shrink the heap to what is live.
 */
export function letOldGenerationGrow(percent = 100): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export interface IdleMemoryOptions {
  /** How often the server's activity is looked at. */
  intervalMs: number;
  /** At most this many requests in an interval still count as quiet (health checks, a poller). */
  quietRequests: number;
  /** Quiet intervals in a row before a release after load (start-up needs one). */
  quietIntervals: number;
  /** Release only when V8's heap has grown at least this much since the last release. */
  grownBytes: number;
  release?: () => void;
  heapBytes?: () => number;
}

/**
 * Releases memory once the server has gone quiet after work: at the first quiet interval after
 * start-up (whose module loading grew the heap), then after `quietIntervals` quiet intervals in a
 * row whenever the heap is `grownBytes` above what the last release left, so a lull in steady
 * traffic does not pause it for nothing. Requests are counted on the Node server's `request` event,
 * the cheapest place (no Fastify hook per request). Returns a stop function.
 */
export function releaseMemoryWhenIdle(server: Server, options: IdleMemoryOptions): () => void {
  const release = options.release ?? releaseMemory;
  const heapBytes = options.heapBytes ?? (() => process.memoryUsage().heapTotal);
  let requests = 0;
  const count = () => {
    requests++;
  };
  server.on('request', count);
  let quietStreak = 0;
  let released = false;
  let heapAfterRelease = 0;
  const timer = setInterval(() => {
    quietStreak = requests <= options.quietRequests ? quietStreak + 1 : 0;
    requests = 0;
    if (quietStreak < (released ? options.quietIntervals : 1)) return;
    if (released && heapBytes() < heapAfterRelease + options.grownBytes) return;
    release();
    released = true;
    heapAfterRelease = heapBytes();
  }, options.intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    server.off('request', count);
  };
}
