import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// releaseStartupMemory (src/platform/startup-memory.ts), in a process of its own so the test
// runner's heap plays no part: after a burst of allocation that grows V8's young generation, as
// start-up does, the call must shrink it back and leave no `gc` on the application's global object.
const MODULE = fileURLToPath(new URL('../../src/platform/startup-memory.ts', import.meta.url));
const PROBE = `
import v8 from 'node:v8';
const { releaseStartupMemory } = await import(${JSON.stringify(MODULE)});
const youngGeneration = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
let kept = [];
for (let i = 0; i < 2_000_000; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 200_000) kept = []; }
const before = youngGeneration();
releaseStartupMemory();
console.log(JSON.stringify({ before, after: youngGeneration(), gcOnGlobal: typeof globalThis.gc }));
`;

describe('releasing start-up memory', () => {
  it('shrinks the young generation that a burst of allocation grew, without exposing gc globally', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    const { before, after, gcOnGlobal } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(before).toBeGreaterThan(16 * 2 ** 20);
    expect(after).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(gcOnGlobal).toBe('undefined');
  }, 60_000);
});
