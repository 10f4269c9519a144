import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// What each dependency costs to import, each in a fresh `node --expose-gc` process: wall time of
// the import, RSS and heap right after it, and RSS after a full GC (what an idle server keeps).
// Baseline: the same process importing nothing. Part of `npm run bench -- idle`.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ImportCost {
  module: string;
  how: 'esm' | 'cjs';
  ms: number;
  rss_mb: number;
  heap_mb: number;
  rss_after_gc_mb: number;
}

// An ESM program that imports one module (or requires it), then reports; `spec` is JSON-quoted.
function probe(spec: string, how: 'esm' | 'cjs'): string {
  const load = how === 'cjs' ? `createRequire(${JSON.stringify(`${ROOT}/package.json`)})(${spec})` : `await import(${spec})`;
  return `import { createRequire } from 'node:module';
const t0 = performance.now();
${spec === 'null' ? '' : load};
const ms = performance.now() - t0;
const m = process.memoryUsage();
globalThis.gc(); await new Promise((r) => setTimeout(r, 100)); globalThis.gc();
console.log(JSON.stringify({ ms, rss: m.rss, heap: m.heapUsed, rssGc: process.memoryUsage().rss }));`;
}

function measure(module: string, how: 'esm' | 'cjs'): ImportCost {
  const spec = module === '(nothing)' ? 'null' : JSON.stringify(module.startsWith('src/') ? path.join(ROOT, module) : module);
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe(spec, how)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; rss: number; heap: number; rssGc: number };
  return { module, how, ms: r.ms, rss_mb: r.rss / 1e6, heap_mb: r.heap / 1e6, rss_after_gc_mb: r.rssGc / 1e6 };
}

export function runImportCosts(): ImportCost[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const rows: ImportCost[] = [measure('(nothing)', 'esm')];
  for (const name of Object.keys(pkg.dependencies).sort()) {
    rows.push(measure(name, 'esm'));
    if (name === 'drizzle-orm') {
      rows.push(
        measure('drizzle-orm/node-postgres', 'esm'),
        measure('drizzle-orm/pg-core', 'esm'),
        measure('drizzle-orm/node-postgres', 'cjs'),
      );
    }
  }
  // vetflow's own drizzle entry (CommonJS build, src/platform/db/drizzle.ts) and the whole app graph.
  rows.push(measure('src/platform/db/drizzle.ts', 'esm'), measure('src/app.ts', 'esm'));
  return rows;
}
