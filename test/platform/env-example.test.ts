import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/platform/config.ts';
import { ROOT } from '../helpers/processes.ts';

describe('.env.example', () => {
  const text = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  const documented = [...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);

  it('documents every configuration variable', () => {
    expect(new Set(documented)).toEqual(new Set(CONFIG_VARIABLES));
  });

  it('is itself a valid configuration', () => {
    const env = Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1], match[2]]));
    expect(() => loadConfig(env)).not.toThrow();
  });
});
