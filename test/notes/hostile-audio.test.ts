import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createEmptyPostgresDatabase } from '../helpers/database.ts';
import { demoNotesKey, startServer } from '../helpers/processes.ts';
import { fixture, postNoteOverHttp } from '../helpers/uploads.ts';
import { startFakeSpeechServer } from '../providers/fake-speech-server.ts';
import { hostileAac, hostileM4a, hostileMp3, hostileWav, writeM4aWithHugeSampleTable } from '../providers/hostile-audio.ts';

// Crafted audio files whose headers declare counts and sizes the bytes do not hold (one 49 KB m4a
// used to grow the process to 13 GB), uploaded through the real route to a real server process
// (ROLE=all: the API dies with the worker) with the openai provider on, so long audio is split.
// Each must end in a 4xx at upload or a failed note with a clear code, while the process's RSS
// grows by less than 150 MB and /healthz answers within 200 ms throughout (on Postgres).

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-hostile-audio-'));
const postgres = await createEmptyPostgresDatabase();
const speech = await startFakeSpeechServer();
afterAll(async () => {
  await speech.close();
  rmSync(dataDir, { recursive: true, force: true });
  await postgres?.drop();
});

const MAX_RSS_GROWTH_MB = 150;
// The embedded database (PGlite) runs every query on the server's own thread: there /healthz waits
// behind each note's SQL (up to ~1.6 s measured on a loaded 2-core machine, and only while notes
// are created and settled), so its bound only catches a multi-second freeze. With Postgres the
// server answers within milliseconds when idle, but the whole suite runs beside it on 2 cores: 460 ms
// was seen there with nothing wrong, while the freezes this guards against (a table parsed in one go)
// lasted seconds. Hence 1 s.
const MAX_HEALTHZ_MS = postgres ? 1000 : 3000;
/** Kills the server past this growth, so code that does blow up cannot take the machine with it. */
const WATCHDOG_RSS_GROWTH_MB = 1024;

/** The process's resident memory now (Linux), NaN once it is gone. */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** A process that answers every request at once: the machine's own latency, for comparison. */
async function startIdleServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [
    '-e',
    "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
  ]);
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk).trim())));
  return { child, url: `http://127.0.0.1:${port}/` };
}

const cases = [
  ...Object.entries(hostileM4a).map(([name, make]) => ({ format: 'm4a', name, make })),
  ...Object.entries(hostileMp3).map(([name, make]) => ({ format: 'mp3', name, make })),
  ...Object.entries(hostileWav).map(([name, make]) => ({ format: 'wav', name, make })),
  ...Object.entries(hostileAac).map(([name, make]) => ({ format: 'aac', name, make })),
];

describe(`hostile audio files (${postgres ? 'Postgres' : 'embedded'})`, () => {
  it('end in a 4xx at upload or a failed note with a clear code, the server answering and its memory flat', async () => {
    const server = await startServer(
      {
        DATA_DIR: dataDir,
        ...(postgres ? { DATABASE_URL: postgres.url } : {}),
        TRANSCRIPTION_PROVIDER: 'openai',
        TRANSCRIPTION_BASE_URL: speech.baseUrl,
        // Every file that passes the upload check is split (not sent whole), whatever it declares.
        TRANSCRIPTION_MAX_REQUEST_SECONDS: '60',
        TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
        JOB_POLLING_INTERVAL_SECONDS: '0.5',
      },
      120_000,
    );
    const pid = server.child.pid!;
    const key = demoNotesKey(server);
    const headers = { 'x-api-key': key };
    const upload = async (bytes: Buffer, fileName: string) => {
      const response = await postNoteOverHttp(server.baseUrl, key, { audio: { bytes, fileName }, metadata: { name: fileName } });
      return { status: response.status, body: (await response.json()) as { code?: string; data?: { id: string } } };
    };
    const note = async (id: string) =>
      (
        (await (await fetch(`${server.baseUrl}/notes/v1/notes/${id}`, { headers })).json()) as {
          data: { transcription_status: string; failure?: { code: string; message: string } };
        }
      ).data;
    const settled = (id: string) =>
      eventually(
        async () => {
          const current = await note(id);
          return ['completed', 'failed'].includes(current.transcription_status) && current;
        },
        60_000,
        200,
      );

    try {
      // A real recording first: the modules an upload and a split load on first use are not growth.
      const warmUp = await upload(fixture('consultation.m4a'), 'warm-up.m4a');
      expect(warmUp.status, JSON.stringify(warmUp.body)).toBe(201);
      await settled(warmUp.body.data!.id);
      const baseline = rssMb(pid);

      // Memory and /healthz, watched from here to the end.
      let peak = baseline;
      let slowest = 0;
      let watching = true;
      const memory = setInterval(() => {
        try {
          const now = rssMb(pid);
          if (Number.isFinite(now)) peak = Math.max(peak, now);
          if (peak - baseline > WATCHDOG_RSS_GROWTH_MB) server.child.kill('SIGKILL');
        } catch {
          // The process is gone: the outcome checks below say so.
        }
      }, 20);
      // Each round probes /healthz and, at the same moment, an idle process on this machine: a
      // 2-core machine shared with other work stalls every process now and then, so what counts is
      // how much longer the server took than the idle process, which nothing of ours holds up.
      const control = await startIdleServer();
      const timed = async (url: string) => {
        const started = performance.now();
        const ok = await fetch(url, { signal: AbortSignal.timeout(5000) })
          .then((response) => response.ok)
          .catch(() => false);
        return ok ? performance.now() - started : Number.POSITIVE_INFINITY;
      };
      const health = (async () => {
        while (watching) {
          const [answered, idle] = await Promise.all([timed(`${server.baseUrl}/healthz`), timed(control.url)]);
          slowest = Math.max(slowest, answered - idle);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      })();

      const outcomes: Record<string, string> = {};
      const largeCases: string[] = [];
      try {
        const created: { name: string; id: string }[] = [];
        for (const { format, name, make } of cases) {
          const label = `${format}: ${name}`;
          const answer = await upload(make(), `hostile.${format}`).catch((error: Error) => error);
          if (answer instanceof Error) outcomes[label] = `no answer: ${answer.message} (${(answer.cause as Error)?.message})`;
          else if (answer.status === 201) created.push({ name: label, id: answer.body.data!.id });
          else outcomes[label] = `${answer.status} ${answer.body.code}`;
        }
        for (const { name, id } of created) {
          const final = await settled(id).catch(async () => note(id).catch((error: Error) => error));
          if (final instanceof Error) {
            outcomes[name] = `no answer: ${final.message}`;
            continue;
          }
          outcomes[name] = `${final.transcription_status} ${final.failure?.code ?? ''}`;
          // The message says what in the file is wrong, for the clinic's integrator.
          if (final.failure) expect(final.failure.message, name).toMatch(/(m4a|mp3|wav|aac) audio/);
        }
        // Three large crafted m4a files at once (issue: each grew the process by ~600 MB and froze
        // it for seconds while a metadata library read its 15-million-entry sample table): one
        // whose header says 960,000 s (refused at upload), two that say 30 min (accepted, then
        // refused by the splitter, whose index limit the table exceeds). Streamed from disk.
        const large = [
          { name: 'm4a: 72 MB, 15 M samples, 960000 s', seconds: 960_000 },
          { name: 'm4a: 72 MB, 15 M samples, says 1800 s (a)', seconds: 1800 },
          { name: 'm4a: 72 MB, 15 M samples, says 1800 s (b)', seconds: 1800 },
        ];
        const files = large.map(({ seconds }, i) => {
          const file = path.join(dataDir, `large-${i}.m4a`);
          writeM4aWithHugeSampleTable(file, { samples: 15_000_000, mdatBytes: 12 * 2 ** 20, seconds });
          return file;
        });
        const answers = await Promise.all(
          files.map(async (file) => {
            const form = new FormData();
            form.append('metadata', JSON.stringify({ name: 'large' }));
            form.append('audio', await openAsBlob(file), 'large.m4a');
            const response = await fetch(`${server.baseUrl}/notes/v1/notes`, { method: 'POST', body: form, headers });
            return { status: response.status, body: (await response.json()) as { code?: string; data?: { id: string } } };
          }),
        );
        for (const [i, answer] of answers.entries()) {
          const { name } = large[i]!;
          if (answer.status !== 201) outcomes[name] = `${answer.status} ${answer.body.code}`;
          else {
            const final = await settled(answer.body.data!.id);
            outcomes[name] = `${final.transcription_status} ${final.failure?.code ?? ''}`;
          }
        }
        largeCases.push(...large.map(({ name }) => name));
      } finally {
        watching = false;
        await health;
        clearInterval(memory);
        control.child.kill();
      }

      // The figures, for the record.
      console.log(
        JSON.stringify({ baselineMb: Math.round(baseline), peakMb: Math.round(peak), healthzBeyondIdleMs: Math.round(slowest), outcomes }),
      );
      expect(server.child.exitCode ?? server.child.signalCode, 'the server exited').toBeNull();
      expect(peak - baseline, `RSS grew from ${baseline.toFixed(0)} MB to ${peak.toFixed(0)} MB`).toBeLessThan(MAX_RSS_GROWTH_MB);
      expect(largeCases).toHaveLength(3);
      for (const label of [...cases.map(({ format, name }) => `${format}: ${name}`), ...largeCases]) {
        expect(outcomes[label], label).toMatch(
          /^(4\d\d (INVALID_AUDIO_FORMAT|AUDIO_DURATION_INVALID)|failed TRANSCRIPTION_AUDIO_UNREADABLE)$/,
        );
      }
      expect(slowest, 'slowest /healthz, beyond an idle process (ms)').toBeLessThan(MAX_HEALTHZ_MS);
    } finally {
      await server.stop();
    }
  }, 240_000);
});
