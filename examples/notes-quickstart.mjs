#!/usr/bin/env node
// Notes API quickstart: upload a consultation's audio, wait for the note, read it, export it as
// TXT and RTF, edit a section and sign the note. Node.js 24, built-ins only (fetch, FormData, Blob,
// fs): no install needed.
//
//   VETFLOW_NOTES_KEY=vnk_... node examples/notes-quickstart.mjs [--url http://localhost:3000] [--audio file.mp3]
//
// VETFLOW_NOTES_KEY (or --key): a Notes key with notes:write (the administrator key a first start
// gives, or one from `npm run cli -- tenant create`); with keys:manage too, the script also shows
// how to make a read-only key. VETFLOW_URL (or --url): the server, default http://localhost:3000.
// VETFLOW_OUT (or --out): where the exports are written, default a new temporary directory.
// Exits 0 when every step worked, 1 with the server's error otherwise.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { url: { type: 'string' }, key: { type: 'string' }, audio: { type: 'string' }, out: { type: 'string' } },
});
const baseUrl = (args.url ?? process.env.VETFLOW_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const key = args.key ?? process.env.VETFLOW_NOTES_KEY;
const audioPath = args.audio ?? fileURLToPath(new URL('../test/fixtures/audio/consultation.mp3', import.meta.url));
const outDir = args.out ?? process.env.VETFLOW_OUT ?? mkdtempSync(path.join(tmpdir(), 'vetflow-notes-'));
const api = `${baseUrl}/notes/v1`;

if (!key) {
  console.error('Set VETFLOW_NOTES_KEY (or pass --key) to a Notes API key with notes:write, e.g. the key a first start gives.');
  process.exit(1);
}

/** One request; the parsed JSON answer, or the error the server answered (with its code) thrown. */
async function call(method, url, { body, json, as = key } = {}) {
  const headers = { 'x-api-key': as };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: json === undefined ? body : JSON.stringify(json) });
  const type = response.headers.get('content-type') ?? '';
  const payload = type.includes('json') ? await response.json() : Buffer.from(await response.arrayBuffer());
  if (!response.ok) {
    const error = new Error(`${method} ${url} → ${response.status} ${payload.code ?? ''}: ${payload.message ?? payload}`);
    error.status = response.status;
    throw error;
  }
  return { payload, type, disposition: response.headers.get('content-disposition') };
}

const step = (name, text) => console.log(`${name}: ${text}`);

async function main() {
  step('server', `${baseUrl}`);

  // 1. A read-only key for the reads below: a role alone is enough (viewer = notes:read).
  let reader = key;
  try {
    const { payload } = await call('POST', `${api}/api-keys`, { json: { name: 'quickstart reader', role: 'viewer' } });
    reader = payload.data.key;
    step('key', `created a ${payload.data.role} key ${payload.data.prefix}… with ${payload.data.permissions.join(', ')} for the reads`);
  } catch (error) {
    if (error.status !== 403) throw error;
    step('key', 'this key cannot create keys (no keys:manage): reading with it instead');
  }

  // 2. Upload: multipart with the audio file and the metadata as JSON text.
  const form = new FormData();
  form.append('audio', new Blob([readFileSync(audioPath)]), path.basename(audioPath));
  form.append('metadata', JSON.stringify({ name: 'Thor', gender: 'male', external_id: `QS-${Date.now()}` }));
  const created = (await call('POST', `${api}/notes`, { body: form })).payload.data;
  step('upload', `${path.basename(audioPath)} → note ${created.id} (${created.transcription_status})`);

  // 3. Poll the status until the background job has finished.
  let status;
  const deadline = Date.now() + 120_000;
  for (;;) {
    status = (await call('GET', `${api}/notes/${created.id}/status`, { as: reader })).payload;
    if (status.status === 'completed' || status.status === 'failed' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  step('status', status.status);
  if (status.status !== 'completed') throw new Error(`the note ended ${status.status}: see GET /notes/${created.id}`);

  // 4. Fetch the note with its sections.
  const note = (await call('GET', `${api}/notes/${created.id}`, { as: reader })).payload.data;
  step('fetch', `${note.name}, ${note.note_style}, ${note.note_sections.length} sections, ${note.review_flags?.length ?? 0} review flags`);
  for (const section of note.note_sections) {
    const text = section.content.replace(/\s+/g, ' ');
    console.log(`  ${section.order}. ${section.title}: ${text.slice(0, 70)}${text.length > 70 ? '…' : ''}`);
  }

  // 5. Export as TXT and RTF (only a completed note exports).
  mkdirSync(outDir, { recursive: true });
  for (const format of ['txt', 'rtf']) {
    const file = await call('GET', `${api}/notes/${created.id}/export?format=${format}`, { as: reader });
    const name = /filename="([^"]+)"/.exec(file.disposition ?? '')?.[1] ?? `note.${format}`;
    const target = path.join(outDir, path.basename(name));
    writeFileSync(target, file.payload);
    step(`export ${format}`, `${file.payload.length} bytes (${file.type.split(';')[0]}) → ${target}`);
  }

  // 6. Edit a section: the body is the whole section, title, content and order all required.
  const first = note.note_sections[0];
  const edited = (
    await call('PATCH', `${api}/note_sections?section_id=${first.id}`, {
      json: { title: first.title, content: `${first.content} Revisado pela veterinária.`, order: first.order },
    })
  ).payload;
  const section = edited.data ?? edited;
  step('edit', `section "${section.title}" now ends "…${section.content.slice(-30)}" (updated ${section.updated_at})`);

  // 7. Sign: a named veterinarian approves the note, which locks it (corrections become amendments).
  const signed = (
    await call('POST', `${api}/notes/${created.id}/sign`, {
      json: { signed_by: { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' }, acknowledge_flags: true },
    })
  ).payload.data;
  const signature = signed.signature;
  step(
    'sign',
    `${signed.record_status} by ${signature.signed_by.name} (${signature.signed_by.license}) at ${signature.signed_at}, ` +
      `flags acknowledged: ${signature.flags_acknowledged}, sha256 ${signature.content_sha256}`,
  );
  step('done', `note ${created.id}`);
}

main().catch((error) => {
  console.error(`failed: ${error.message}`);
  process.exit(1);
});
