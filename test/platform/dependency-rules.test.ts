import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run check:deps` (.dependency-cruiser.cjs) enforces the floors CONTRIBUTING.md describes. Each
// case builds a small src/ tree with one forbidden import and runs the same configuration on it: the
// check must fail and name the rule. The last case runs it on the real tree.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const scratch: string[] = [];

afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function check(cwd: string): Promise<{ failed: boolean; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [DEPCRUISE, '--config', '.dependency-cruiser.cjs', 'src'], { cwd });
    return { failed: false, output: stdout };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { failed: true, output: stdout + stderr };
  }
}

/** A scratch tree: `files` maps a path under src/ to the module it imports (or null). */
function treeOf(files: Record<string, string | null>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-deps-'));
  scratch.push(dir);
  copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
  for (const [file, imported] of Object.entries(files)) {
    const full = path.join(dir, 'src', file);
    mkdirSync(path.dirname(full), { recursive: true });
    const specifier = imported && path.relative(path.dirname(file), imported).replace(/^(?!\.)/, './');
    writeFileSync(full, specifier ? `import { value } from '${specifier}';\nexport const used = value;\n` : 'export const value = 1;\n');
  }
  return dir;
}

describe('npm run check:deps', () => {
  it.each([
    ['platform-imports-nothing-above', { 'platform/db/client.ts': 'notes/store/notes.repo.ts', 'notes/store/notes.repo.ts': null }],
    ['platform-imports-nothing-above', { 'platform/jobs.ts': 'providers/storage/port.ts', 'providers/storage/port.ts': null }],
    ['providers-import-lower-floors-only', { 'providers/storage/local.ts': 'flow/contacts/phone.ts', 'flow/contacts/phone.ts': null }],
    ['platform-imports-nothing-above', { 'platform/jobs.ts': 'audio/split.ts', 'audio/split.ts': null }],
    ['audio-imports-platform-only', { 'audio/split.ts': 'providers/transcription/port.ts', 'providers/transcription/port.ts': null }],
    [
      'language-imports-platform-only',
      { 'language/sentences.ts': 'models/sectioner/vocabulary.ts', 'models/sectioner/vocabulary.ts': null },
    ],
    [
      'models-import-language-and-platform-only',
      { 'models/sectioner/sectioner.ts': 'providers/sectioning/port.ts', 'providers/sectioning/port.ts': null },
    ],
    // A Notes module importing an adapter past its port, or the model past its adapter.
    ['api-trees-use-providers-through-ports', { 'notes/live/live.service.ts': 'providers/storage/s3.ts', 'providers/storage/s3.ts': null }],
    [
      'api-trees-use-providers-through-ports',
      { 'flow/messages/chat-message.job.ts': 'providers/adapters.ts', 'providers/adapters.ts': null },
    ],
    [
      'api-trees-do-not-import-models',
      { 'notes/processing/write-sections.ts': 'models/sectioner/sectioner.ts', 'models/sectioner/sectioner.ts': null },
    ],
    // Inside a feature: routes → services → repos.
    [
      'repos-import-no-service-or-route',
      { 'notes/webhooks/endpoints.repo.ts': 'notes/webhooks/webhooks.service.ts', 'notes/webhooks/webhooks.service.ts': null },
    ],
    [
      'services-import-no-route',
      { 'notes/webhooks/webhooks.service.ts': 'notes/webhooks/webhooks.routes.ts', 'notes/webhooks/webhooks.routes.ts': null },
    ],
    // Between features: a feature importing a later one (upload is above processing), or a neighbour on its floor.
    [
      'notes-feature-processing-imports-lower-floors-only',
      { 'notes/processing/transcribe.job.ts': 'notes/upload/create-note.service.ts', 'notes/upload/create-note.service.ts': null },
    ],
    [
      'notes-feature-history-imports-lower-floors-only',
      { 'notes/history/history.service.ts': 'notes/templates/find-template.ts', 'notes/templates/find-template.ts': null },
    ],
    ['notes-does-not-import-flow', { 'notes/upload/upload.routes.ts': 'flow/contacts/phone.ts', 'flow/contacts/phone.ts': null }],
    ['flow-does-not-import-notes', { 'flow/surveys/surveys.service.ts': 'notes/store/notes.repo.ts', 'notes/store/notes.repo.ts': null }],
    ['api-trees-do-not-import-composition-roots', { 'notes/notes.module.ts': 'app.ts', 'app.ts': null }],
    [
      'notes-store-imports-no-feature',
      { 'notes/store/notes.repo.ts': 'notes/processing/write-sections.ts', 'notes/processing/write-sections.ts': null },
    ],
    ['tree-base-files-import-no-feature', { 'flow/callers.ts': 'flow/keys/scopes.ts', 'flow/keys/scopes.ts': null }],
    ['no-circular', { 'notes/store/a.ts': 'notes/store/b.ts', 'notes/store/b.ts': 'notes/store/a.ts' }],
  ])('fails on an import that breaks %s', async (rule, files) => {
    const result = await check(treeOf(files));
    expect(result.failed).toBe(true);
    expect(result.output).toContain(rule);
  });

  it('accepts the imports the floors allow', async () => {
    const result = await check(
      treeOf({
        'notes/upload/create-note.service.ts': 'notes/store/notes.repo.ts',
        'notes/store/notes.repo.ts': 'platform/db/client.ts',
        'notes/store/own-note.ts': 'notes/callers.ts',
        'notes/callers.ts': null,
        'providers/storage/local.ts': 'platform/db/client.ts',
        'platform/db/client.ts': null,
        'app.ts': 'notes/upload/create-note.service.ts',
      }),
    );
    expect(result).toMatchObject({ failed: false });
  });

  it('fails on a direct import of drizzle-orm (drizzle-through-one-entry)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-deps-'));
    scratch.push(dir);
    copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
    // A stand-in package where the resolver looks for drizzle-orm.
    mkdirSync(path.join(dir, 'node_modules/drizzle-orm'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules/drizzle-orm/package.json'), '{"name":"drizzle-orm","main":"index.js"}');
    writeFileSync(path.join(dir, 'node_modules/drizzle-orm/index.js'), 'exports.eq = 1;');
    mkdirSync(path.join(dir, 'src/notes/store'), { recursive: true });
    writeFileSync(path.join(dir, 'src/notes/store/notes.repo.ts'), "import { eq } from 'drizzle-orm';\nexport const used = eq;\n");
    const result = await check(dir);
    expect(result.failed).toBe(true);
    expect(result.output).toContain('drizzle-through-one-entry');
  });

  it('puts every feature folder of each tree on a floor', async () => {
    const require = createRequire(import.meta.url);
    const { forbidden } = require(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
    for (const tree of ['notes', 'flow']) {
      const features = readdirSync(path.join(ROOT, 'src', tree), { withFileTypes: true }).filter((entry) => entry.isDirectory());
      for (const feature of features) {
        expect(
          forbidden.map((rule) => rule.name),
          `src/${tree}/${feature.name}/ has no floor in FEATURE_FLOORS`,
        ).toContain(`${tree}-feature-${feature.name}-imports-lower-floors-only`);
      }
    }
  });

  it('passes on the source tree', async () => {
    const result = await check(ROOT);
    expect(result.output).toContain('no dependency violations found');
    expect(result.failed).toBe(false);
  });
});
