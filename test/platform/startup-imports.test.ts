import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// What loading the app costs (docs/benchmarks.md, "Idle memory"): drizzle through its CommonJS build
// only — its ESM build costs ~200 MB of RSS on Node 24 — the optional dependencies not at all, and
// what only some paths use (the sectioner's stemmer, phone parsing, the duration probe) not before them.
const APP = fileURLToPath(new URL('../../src/app.ts', import.meta.url));
const PROBE = `
import { registerHooks } from 'node:module';
const urls = new Set();
registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); urls.add(resolved.url); return resolved; } });
await import(${JSON.stringify(APP)});
console.log(JSON.stringify([...urls].filter((url) => url.includes('/node_modules/')).map((url) => url.slice(url.lastIndexOf('/node_modules/') + 14))));
`;

describe('importing the app', () => {
  it('loads one copy of drizzle, its CommonJS build, and not ioredis, the AWS SDK, mediabunny or PGlite', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    const loaded: string[] = JSON.parse(stdout.trim().split('\n').at(-1)!);
    const drizzle = loaded.filter((file) => file.startsWith('drizzle-orm/'));
    expect(drizzle).toContain('drizzle-orm/index.cjs');
    expect(drizzle).toContain('drizzle-orm/node-postgres/index.cjs');
    expect(drizzle.filter((file) => !file.endsWith('.cjs'))).toEqual([]);
    expect(loaded.filter((file) => /^(ioredis|@aws-sdk|mediabunny|@electric-sql\/pglite)\//.test(file))).toEqual([]);
  }, 60_000);

  it('loads the stemmer and libphonenumber-js only when first used', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    const loaded: string[] = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(loaded.filter((file) => /^(snowball-stemmers|libphonenumber-js)\//.test(file))).toEqual([]);
  }, 60_000);
});
