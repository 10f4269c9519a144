import v8 from 'node:v8';
import vm from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Hands back to the system what start-up used and no longer needs: one memory-reducing full GC,
 * run once the server is up.
 *
 * Start-up (module loading, schema building) allocates fast enough that V8 grows the young
 * generation to its maximum (2 × 32 MiB semi-spaces here), and V8 only shrinks it in a GC that is
 * asked to reduce memory — which an idle process never runs. That was ~30 MB of the idle RSS
 * (docs/benchmarks.md). A "last-resort" GC is the one that shrinks it: the young generation starts
 * again at 1 MiB and grows back only if the load needs it, so throughput is not capped the way
 * `--max-semi-space-size` caps it. It costs one pause of ~30-40 ms, once, before traffic.
 *
 * `gc` is not on the global object without `--expose-gc`; setting the flag at run time exposes it
 * in contexts created afterwards, so it is taken from a fresh `vm` context and never leaks into
 * the application's own global scope.
 */
export function releaseStartupMemory(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as GcFunction | undefined;
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
