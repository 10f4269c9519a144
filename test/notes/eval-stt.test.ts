import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { json, promptOf, startFakeServer } from '../providers/fake-openai-server.ts';

// `npm run eval:stt` against a local OpenAI-compatible fake that hears a drug name right only when
// the prompt names it, as a real model helped by its prompt does: the command must show the word
// error rate, drug-name recall and flags of both runs apart.

const run = promisify(execFile);
const server = await startFakeServer();
afterAll(() => server.close());
server.handle(async (request, response) => {
  const prompt = await promptOf(request);
  const drug = prompt?.includes('carprofeno') ? 'carprofeno' : 'carpofeno';
  json(response, 200, { text: `vou passar ${drug} por cinco dias`, language: 'portuguese', duration: 3, segments: [] });
});

const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-eval-stt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'thor.wav'), Buffer.from('RIFF0000WAVEfmt '));
writeFileSync(path.join(dir, 'thor.txt'), 'Vou passar carprofeno por cinco dias.');
writeFileSync(path.join(dir, 'mimi.mp3'), Buffer.from('ID3'));
writeFileSync(path.join(dir, 'mimi.txt'), 'Vou passar carprofeno por cinco dias.');
// Audio without its reference is skipped.
writeFileSync(path.join(dir, 'alone.m4a'), Buffer.from('....'));

const evalStt = (...args: string[]) =>
  run(process.execPath, [path.join(import.meta.dirname, '../../scripts/evaluate-stt.ts'), ...args], { timeout: 60_000 });

describe('npm run eval:stt', () => {
  it('sends each recording without and with the prompt and prints WER, drug recall and flags', async () => {
    const { stdout } = await evalStt('--base-url', server.baseUrl, '--dir', dir, '--drug-names', 'Apoquel');
    expect(server.requests).toHaveLength(4);
    const prompts = await Promise.all(server.requests.map(promptOf));
    expect(prompts.filter((prompt) => prompt === null)).toHaveLength(2);
    expect(prompts.filter((prompt) => prompt?.startsWith('Apoquel, carprofeno'))).toHaveLength(2);
    expect(stdout).toContain('thor.wav: 6 words, 1 drug names');
    expect(stdout).not.toContain('alone.m4a');
    expect(stdout).toContain('flag: "carpofeno" → carprofeno');
    const totals = stdout.slice(stdout.indexOf('all 2 recordings'));
    expect(totals).toMatch(/without prompt +WER +16\.7% +drugs 0\/2 +flags 2/);
    expect(totals).toMatch(/with prompt +WER +0\.0% +drugs 2\/2 +flags 0/);
  });

  it('says how to call it when the server or the folder is missing', async () => {
    const failure = await evalStt('--dir', dir).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('usage: npm run eval:stt');
  });
});
