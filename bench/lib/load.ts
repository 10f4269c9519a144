import { spawn } from 'node:child_process';
import type { LoadConfig, LoadResult } from '../loadgen.ts';
import { ROOT } from './audio.ts';

export type { LoadConfig, LoadResult };

/** Runs bench/loadgen.ts in its own process and returns what it measured. */
export function runLoad(config: LoadConfig): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/loadgen.ts', JSON.stringify(config)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`loadgen exited with ${code}`));
      resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}
