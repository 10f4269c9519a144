import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

// What an error that escaped every handler does to a process that installed handleEscapedErrors
// (as src/main.ts does): a database fault is survived, anything else shuts down. Run in a child
// process of its own, because the point is whether the process lives.

function runWith(escaping: string): { code: number | null; stdout: string } {
  const script = `
    import { EventEmitter } from 'node:events';
    import { handleEscapedErrors } from './src/platform/process-errors.ts';
    const logger = { warn: (_fields, message) => console.log('warn:', message), fatal: (_fields, message) => console.log('fatal:', message) };
    handleEscapedErrors(logger, (error) => {
      console.log('shutdown:', error.message);
      process.exit(1);
    });
    setTimeout(() => { ${escaping} }, 10);
    setTimeout(() => { console.log('alive'); process.exit(0); }, 300);
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout };
}

describe('errors that escape every handler', () => {
  it.each([
    [
      'an error event of a connection the server ended',
      `new EventEmitter().emit('error', new Error('Connection terminated unexpectedly'));`,
    ],
    ['a reset socket', `new EventEmitter().emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));`],
    [
      'a rejected statement nobody awaited',
      `Promise.reject(Object.assign(new Error('terminating connection'), { code: '57P01', severity: 'FATAL' }));`,
    ],
  ])('%s: the process lives on, with a warning', (_label, escaping) => {
    const { code, stdout } = runWith(escaping);
    expect(stdout).toContain('warn: database connection fault outside any request: survived');
    expect(stdout).toContain('alive');
    expect(code).toBe(0);
  });

  it('anything else: the process shuts down and exits 1', () => {
    const { code, stdout } = runWith(`throw new TypeError('a bug');`);
    expect(stdout).toContain('shutdown: a bug');
    expect(stdout).not.toContain('alive');
    expect(code).toBe(1);
  });
});
