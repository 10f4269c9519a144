import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

// What someone with an old Node.js sees: the launchers (src/start.mjs for the server,
// src/cli/vetflow.mjs for the CLI) are plain JavaScript and check the version before any
// TypeScript is loaded, which such a Node.js cannot even parse. Run for real with the system's
// older Node.js (and its npm) when the machine has one.

const run = promisify(execFile);
const OLD_NODE = '/usr/bin/node';
const oldVersion = existsSync(OLD_NODE) ? (await run(OLD_NODE, ['--version'])).stdout.trim().replace(/^v/, '') : null;
const usable = oldVersion !== null && Number(oldVersion.split('.')[0]) < 24;
const reason = oldVersion === null ? `no ${OLD_NODE} on this machine` : `${OLD_NODE} is ${oldVersion}, not older than 24`;

async function attempt(file: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const expected = `vetflow needs Node.js ≥ 24 (found ${oldVersion})\n`;

describe.skipIf(!usable)(`on a Node.js older than 24 (${usable ? OLD_NODE : `skipped: ${reason}`})`, () => {
  it.each([
    ['the server launcher', ['src/start.mjs']],
    ['the CLI launcher', ['src/cli/vetflow.mjs', 'migrate']],
  ])('%s exits 1 with one line naming the version needed and found', async (_name, args) => {
    const result = await attempt(OLD_NODE, args);
    expect(result).toEqual({ code: 1, stdout: '', stderr: expected });
  });

  const npm = path.join(path.dirname(OLD_NODE), 'npm');
  it.skipIf(!existsSync(npm))(`npm start and npm run migrate say the same, not ERR_UNKNOWN_FILE_EXTENSION (needs ${npm})`, async () => {
    // The old Node.js first on PATH, as on a machine where it is the only one.
    const env = { PATH: `${path.dirname(OLD_NODE)}:${process.env.PATH ?? ''}`, DATA_DIR: path.join(ROOT, 'build', 'never-used') };
    for (const script of ['start', 'migrate']) {
      const result = await attempt(npm, ['run', '--silent', script], env);
      expect(result.code, script).toBe(1);
      expect(result.stderr, script).toContain(expected);
      expect(result.stderr, script).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
    }
    expect(existsSync(env.DATA_DIR)).toBe(false);
  });
});

describe('on this Node.js', () => {
  it('the CLI launcher runs the CLI (the check lets a supported version through)', async () => {
    const result = await attempt(process.execPath, ['src/cli/vetflow.mjs', 'frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: unknown command "frobnicate"/);
  });
});
