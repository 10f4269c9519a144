import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRM_TEST_ENV } from '../helpers/crm.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { type CommandResult, type RunningServer, runCli, runNode, startServer } from '../helpers/processes.ts';
import { toneFile } from '../providers/tone-audio.ts';

// The quickstarts in examples/ are run as a reader would run them: `node examples/<name>.mjs`, a
// process of its own, against a real server process, with the credentials the operator CLI
// printed (tenant create, workspace create) in the environment. The database is this run's kind:
// a Postgres test database or an embedded data directory.

const pg = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL ? await createTestDatabase() : undefined;
const workDir = mkdtempSync(path.join(tmpdir(), 'vetflow-examples-'));
const env = { DATA_DIR: path.join(workDir, 'data'), ...(pg?.url ? { DATABASE_URL: pg.url } : {}), ...CRM_TEST_ENV };
const ADMIN = { email: 'admin@quickstart.example', password: 'senha longa do quickstart' };
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

let server: RunningServer;
let notesKey: string;

beforeAll(async () => {
  // Before the server: the embedded data directory admits one process at a time.
  const tenant = await runCli(['tenant', 'create', '--name', 'Clínica Quickstart'], env);
  expect(tenant.code, tenant.stderr).toBe(0);
  notesKey = JSON.parse(tenant.stdout).admin_key;
  const workspace = await runCli(
    ['workspace', 'create', '--name', 'Quickstart', '--admin-email', ADMIN.email, '--admin-password', ADMIN.password],
    env,
  );
  expect(workspace.code, workspace.stderr).toBe(0);
  server = await startServer(env);
  // Three processes that each open (and on first use migrate) the database: generous on a busy machine.
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await pg?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

/** `node examples/<script> ...args` with only the given environment (and PATH). */
function runExample(script: string, args: string[], scriptEnv: Record<string, string>): Promise<CommandResult> {
  return runNode([path.join('examples', script), ...args], { PATH: process.env.PATH ?? '', ...scriptEnv });
}

/** The lines a step printed (`step: text`), without the prefix. */
const linesOf = (stdout: string, step: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith(`${step}: `))
    .map((line) => line.slice(step.length + 2));

describe('examples/notes-quickstart.mjs', () => {
  it('uploads, polls, fetches, exports TXT and RTF, edits a section and signs', async () => {
    const out = path.join(workDir, 'exports');
    const result = await runExample('notes-quickstart.mjs', ['--out', out], { VETFLOW_URL: server.baseUrl, VETFLOW_NOTES_KEY: notesKey });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { stdout } = result;

    expect(linesOf(stdout, 'key')).toEqual([
      expect.stringMatching(/^created a viewer key vnk_[0-9a-f]{4}… with notes:read for the reads$/),
    ]);
    const [upload] = linesOf(stdout, 'upload');
    const noteId = new RegExp(`^consultation\\.mp3 → note (${UUID}) \\(pending\\)$`).exec(upload ?? '')?.[1];
    expect(noteId, stdout).toBeDefined();
    expect(linesOf(stdout, 'status')).toEqual(['completed']);
    expect(linesOf(stdout, 'fetch')).toEqual([expect.stringMatching(/^Thor, verbatim, [1-9] sections, \d+ review flags$/)]);

    // The files it wrote are the server's exports.
    const [txt] = linesOf(stdout, 'export txt');
    const [rtf] = linesOf(stdout, 'export rtf');
    expect(txt).toMatch(/^\d+ bytes \(text\/plain\) → .+\.txt$/);
    expect(rtf).toMatch(/^\d+ bytes \(application\/rtf\) → .+\.rtf$/);
    const txtFile = txt!.split(' → ')[1]!;
    const rtfFile = rtf!.split(' → ')[1]!;
    expect(existsSync(txtFile) && existsSync(rtfFile)).toBe(true);
    expect(readFileSync(txtFile, 'utf8')).toContain('Thor');
    expect(readFileSync(rtfFile, 'latin1').startsWith('{\\rtf1')).toBe(true);

    // The edit reached the note.
    expect(linesOf(stdout, 'edit')).toEqual([
      expect.stringMatching(/^section ".+" now ends "….*Revisado pela veterinária\." \(updated .+\)$/),
    ]);
    const note = (await (await fetch(`${server.baseUrl}/notes/v1/notes/${noteId}`, { headers: { 'x-api-key': notesKey } })).json()) as any;
    expect(note.data.note_sections[0].content).toMatch(/Revisado pela veterinária\.$/);

    expect(linesOf(stdout, 'sign')).toEqual([
      expect.stringMatching(/^signed by Dra\. Ana Souza \(CRMV-SP 12345\) at .+, sha256 [0-9a-f]{64}$/),
    ]);
    expect(note.data.record_status).toBe('signed');
    expect(linesOf(stdout, 'done')).toEqual([`note ${noteId}`]);
  });

  it('says what it needs when the key is missing, and what the server answered when the key is wrong', async () => {
    const missing = await runExample('notes-quickstart.mjs', [], { VETFLOW_URL: server.baseUrl });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Set VETFLOW_NOTES_KEY/);
    const wrong = await runExample('notes-quickstart.mjs', ['--key', `vnk_${'0'.repeat(32)}`], { VETFLOW_URL: server.baseUrl });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/→ 401 /);
  });
});

describe('examples/crm-quickstart.mjs', () => {
  it('gets a key, upserts every phone format, batches, follows the feed to its end and triggers a survey', async () => {
    const result = await runExample('crm-quickstart.mjs', ['--page-size', '2'], {
      VETFLOW_URL: server.baseUrl,
      VETFLOW_CRM_EMAIL: ADMIN.email,
      VETFLOW_CRM_PASSWORD: ADMIN.password,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { stdout } = result;

    expect(linesOf(stdout, 'login')).toEqual([expect.stringMatching(/^admin@quickstart\.example \(administrator\) in "Quickstart" /)]);
    expect(linesOf(stdout, 'key')).toEqual([expect.stringMatching(/^issued crm_live_\w{3}… with contacts:write, contacts:read/)]);

    // One contact created, then found by its phone in each other format, always the same E.164.
    const upserts = linesOf(stdout, 'upsert');
    const created = new RegExp(`^\\(11\\) 9\\d{4}-\\d{4} → 201 created, contact (${UUID}), phone (\\+5511\\d{9})$`).exec(upserts[0]!);
    expect(created, stdout).not.toBeNull();
    const formats = upserts.slice(1, -1);
    expect(formats.length).toBeGreaterThanOrEqual(10);
    for (const line of formats) expect(line).toMatch(new RegExp(`→ 200 updated, matched_by phone, phone \\${created![2]}$`));
    expect(upserts.at(-1)).toMatch(/\(landline, 8 digits kept\) → 201 created, phone \+5511\d{8}$/);

    expect(linesOf(stdout, 'batch')).toEqual([
      expect.stringMatching(new RegExp(`^item 0 → 201 created ${UUID}$`)),
      expect.stringMatching(new RegExp(`^item 1 → 201 created ${UUID}$`)),
      `item 2 → 200 updated ${created![1]}`,
      'item 3 → 400 INVALID_PHONE',
    ]);
    // Five changes (the contact, the landline, the batch's two creates and its update; the phone
    // formats changed nothing) read two at a time: three pages, the last with has_more false.
    const [feed] = linesOf(stdout, 'feed');
    const [, changes, pages] = /^(\d+) changes in (\d+) pages of up to 2, followed to the end \(has_more: false\)/.exec(feed ?? '') ?? [];
    expect(Number(changes), stdout).toBeGreaterThanOrEqual(5);
    expect(Number(pages)).toBeGreaterThanOrEqual(3);

    expect(stdout).toMatch(/^survey 1\/5: POST pipeline-stages "Atendimento" → /m);
    expect(stdout).toMatch(/^survey 2\/5: POST pipeline-stages "Pesquisa de satisfação" → /m);
    expect(stdout).toMatch(/^survey 3\/5: PUT survey-config → enabled true/m);
    expect(stdout).toMatch(/^survey 4\/5: POST leads → lead .+ \(active\)/m);
    expect(stdout).toMatch(/^survey 5\/5: POST chats → chat .+ \(whatsapp\)/m);
    expect(linesOf(stdout, 'survey')).toEqual([
      expect.stringMatching(/^triggered: true \(visit_completed_external\), lead /),
      'again → triggered: false (already_sent)',
    ]);
  });

  it('runs again on the same workspace: the stages are reused, the new contact gets its own survey', async () => {
    const result = await runExample('crm-quickstart.mjs', [], {
      VETFLOW_URL: server.baseUrl,
      VETFLOW_CRM_EMAIL: ADMIN.email,
      VETFLOW_CRM_PASSWORD: ADMIN.password,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^survey 1\/5: stage "Atendimento" exists: /m);
    expect(linesOf(result.stdout, 'survey')[0]).toMatch(/^triggered: true/);
  });
});

describe('examples/live-capture.mjs', () => {
  it('cuts a recording into 30 s parts, drops its connection twice, resumes from the held parts and prints the note', async () => {
    // 100 s of m4a: four parts (30, 30, 30, 10 s), sent 200× faster than real time.
    const recording = await toneFile('m4a', 100);
    const result = await runExample('live-capture.mjs', [recording, '200'], { VETFLOW_URL: server.baseUrl, VETFLOW_KEY: notesKey });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { stdout } = result;
    expect(stdout).toMatch(/^4 parts of up to 30 s$/m);
    const [id] = /^live note (\S+) /m.exec(stdout)?.slice(1) ?? [];
    expect(id).toMatch(new RegExp(`^${UUID}$`));
    // Parts 2 and 3 are cut off half-way: the server keeps nothing of them, the parts listing says
    // so, and only they are sent again.
    expect(stdout.match(/^part \d: (connection dropped|resent.*)$/gm)).toEqual([
      'part 2: connection dropped',
      expect.stringMatching(/^part 2: resent \(\d+(\.\d+)? s\)$/),
      'part 3: connection dropped',
      expect.stringMatching(/^part 3: resent \(\d+(\.\d+)? s\)$/),
    ]);
    expect(stdout).toMatch(/^part 4: \d+(\.\d+)? s, \d+ bytes$/m);
    expect(stdout).toMatch(/^ready \d+\.\d s after complete: completed$/m);
    expect(stdout).toMatch(/^## .+\n.+/m);

    const parts = await fetch(`${server.baseUrl}/notes/v1/notes/${id}/parts`, { headers: { 'x-api-key': notesKey } });
    const held = (await parts.json()) as {
      data: { part: number; seconds: number }[];
      meta: { state: string; parts: number; seconds: number };
    };
    expect(held.data.map((part) => part.part)).toEqual([1, 2, 3, 4]);
    expect(held.meta).toMatchObject({ state: 'closed', parts: 4, seconds: expect.closeTo(100, 0) });
  }, 120_000);
});
