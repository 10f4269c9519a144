import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { flowApiDescription } from '../src/flow/flow.api.ts';
import { notesApiDescription } from '../src/notes/notes.api.ts';
import { loadConfig } from '../src/platform/config.ts';

// Writes the OpenAPI documents the app serves (`<dir>/notes.json`, `<dir>/flow.json`), exactly as
// served, so CI can lint them with the tools integrators use. Runs the real app on a throw-away
// embedded database. Usage: node scripts/write-openapi.ts <dir>

const outDir = process.argv[2];
if (!outDir) throw new Error('usage: node scripts/write-openapi.ts <dir>');
const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-openapi-'));
const { DATABASE_URL: _ignored, ...env } = process.env;
const app = await buildApp(loadConfig({ ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ROLE: 'api' }));
try {
  mkdirSync(outDir, { recursive: true });
  for (const [name, api] of [
    ['notes', notesApiDescription],
    ['flow', flowApiDescription],
  ] as const) {
    const response = await app.inject({ method: 'GET', url: `${api.prefix}/openapi.json` });
    if (response.statusCode !== 200) throw new Error(`${api.prefix}/openapi.json answered ${response.statusCode}`);
    writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(response.json(), null, 2)}\n`);
  }
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
