#!/usr/bin/env node
// A clinic app's live capture, end to end (docs/notes-live.md): cuts a recording into 30 s parts,
// sends them as the visit "runs", loses its connection twice, resumes from what the server says it
// holds, completes, and prints the note a few seconds later. Node 24 built-ins only; ffmpeg on PATH.
//
//   VETFLOW_URL=http://localhost:3000 VETFLOW_KEY=vnk_... node examples/live-capture.mjs consultation.m4a [speed]
//
// `speed` (default 30) is how many times faster than real time the parts are sent.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const [recording, speedArg] = process.argv.slice(2);
const baseUrl = (process.env.VETFLOW_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const key = process.env.VETFLOW_KEY;
if (!recording || !key) {
  console.error('usage: VETFLOW_URL=... VETFLOW_KEY=vnk_... node examples/live-capture.mjs <recording> [speed]');
  process.exit(2);
}
const speed = Number(speedArg ?? 30);
const PART_SECONDS = 30;

// 1. Cut the recording into 30 s parts at packet boundaries (stream copy, no re-encoding), as a
//    recorder's time slices are: joined again, they are the original stream.
const ext = path.extname(recording).slice(1).toLowerCase();
const muxer = { m4a: 'ipod', mp4: 'ipod', mp3: 'mp3', aac: 'adts', wav: 'wav' }[ext];
if (!muxer) throw new Error(`unsupported extension .${ext}: use m4a, mp3, aac or wav`);
const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-live-'));
const cut = spawnSync('ffmpeg', [
  ...['-hide_banner', '-loglevel', 'error', '-i', recording, '-map', '0:a:0', '-c', 'copy'],
  ...[
    '-f',
    'segment',
    '-segment_time',
    String(PART_SECONDS),
    '-segment_format',
    muxer,
    path.join(dir, `part%03d.${ext === 'mp4' ? 'm4a' : ext}`),
  ],
]);
if (cut.status !== 0) throw new Error(`ffmpeg failed: ${cut.stderr}`);
const parts = readdirSync(dir)
  .sort()
  .map((name) => readFileSync(path.join(dir, name)));
rmSync(dir, { recursive: true, force: true });
console.log(`${parts.length} parts of up to ${PART_SECONDS} s`);

async function api(method, url, body, signal) {
  const binary = body instanceof Uint8Array;
  const response = await fetch(`${baseUrl}/notes/v1${url}`, {
    method,
    signal,
    headers: {
      'x-api-key': key,
      ...(body && !binary ? { 'content-type': 'application/json' } : {}),
      ...(binary ? { 'content-type': 'application/octet-stream' } : {}),
    },
    ...(body ? { body: binary ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw Object.assign(new Error(`${method} ${url}: ${response.status} ${json?.code ?? ''} ${json?.message ?? ''}`), { json });
  return json;
}

/** A part whose connection drops half-way: the server never gets all its bytes, so it keeps nothing of it. */
async function sendHalfAndDrop(n) {
  const bytes = parts[n - 1];
  const controller = new AbortController();
  const body = new ReadableStream({
    start(stream) {
      stream.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2)));
      setTimeout(() => controller.abort(), 100);
    },
  });
  await fetch(`${baseUrl}/notes/v1/notes/${id}/parts/${n}`, {
    method: 'PUT',
    signal: controller.signal,
    duplex: 'half',
    headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
    body,
  }).catch(() => {});
}

// 2. Start the live note before any audio exists.
const created = await api('POST', '/notes/live', { name: 'Thor', gender: 'male', metadata: [{ key: 'tutor', value: 'Ana' }] });
const id = created.data.id;
console.log('live note', id, created.data.capture);

// 3. Send each part when it "ends". Twice the connection drops mid-part (the request is aborted):
//    the client then asks which parts the server holds and resends only the missing ones.
const drops = new Set([Math.floor(parts.length / 3) + 1, Math.floor((2 * parts.length) / 3) + 1]);
const visitStarted = Date.now();
for (let n = 1; n <= parts.length; n++) {
  const due = visitStarted + (n * PART_SECONDS * 1000) / speed;
  await sleep(Math.max(0, due - Date.now()));
  if (drops.delete(n)) {
    await sendHalfAndDrop(n);
    console.log(`part ${n}: connection dropped`);
    const held = await api('GET', `/notes/${id}/parts`);
    const have = new Set(held.data.map((part) => part.part));
    for (let missing = 1; missing <= n; missing++) {
      if (have.has(missing)) continue;
      const sent = await api('PUT', `/notes/${id}/parts/${missing}`, parts[missing - 1]);
      console.log(`part ${missing}: resent (${sent.data.seconds} s)`);
    }
    continue;
  }
  const sent = await api('PUT', `/notes/${id}/parts/${n}`, parts[n - 1]);
  console.log(`part ${n}: ${sent.data.seconds} s, ${sent.data.bytes} bytes`);
}

// 4. The visit ends: complete, then wait for the note.
const completedAt = Date.now();
await api('POST', `/notes/${id}/complete`, { parts: parts.length });
for (;;) {
  const status = await api('GET', `/notes/${id}/status`);
  if (status.status === 'completed' || status.status === 'failed') break;
  await sleep(250);
}
const note = (await api('GET', `/notes/${id}`)).data;
console.log(`\nready ${((Date.now() - completedAt) / 1000).toFixed(1)} s after complete: ${note.transcription_status}`);
if (note.failure) console.log(note.failure);
for (const section of note.note_sections ?? []) console.log(`\n## ${section.title}\n${section.content}`);
