import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { runCli, startServer } from '../helpers/processes.ts';
import { uploadNoteOverHttp } from '../helpers/uploads.ts';
import { startReceiver } from './webhooks-receiver.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'vetflow-webhooks-'));
const shared = await createTestDatabase();
afterAll(async () => {
  await shared.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(shared.url)('webhooks with two worker processes', () => {
  it('delivers every event exactly once through a receiver outage and a worker killed and restarted', async () => {
    await shared.database.close();
    const env = {
      DATABASE_URL: shared.url ?? '',
      DATA_DIR: dataDir,
      JOB_POLLING_INTERVAL_SECONDS: '0.5',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,2,2,2,2',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
      SANDBOX_TRANSCRIPTION_DELAY_MS: '200',
      // A killed worker's jobs are noticed within seconds, not the production minute.
      JOB_SUPERVISE_INTERVAL_SECONDS: '2',
      TRANSCRIPTION_HEARTBEAT_SECONDS: '10',
      WEBHOOK_TIMEOUT_MS: '2000',
    };
    const tenant = JSON.parse((await runCli(['tenant', 'create', '--name', 'Duas'], env)).stdout);
    // An outage: the first three requests get 503.
    const receiver = await startReceiver((_request, index) => (index < 3 ? 503 : 200));
    const api = await startServer({ ...env, ROLE: 'all' });
    let worker = await startServer({ ...env, ROLE: 'worker' });
    try {
      const headers = { 'x-api-key': tenant.admin_key };
      const created = await fetch(`${api.baseUrl}/notes/v1/webhooks`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['note.completed', 'note.failed'] }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };

      const names = ['Thor', 'Mel', 'FAIL', 'Rex', 'Luna', 'Bidu'];
      for (const name of names) {
        await uploadNoteOverHttp(api.baseUrl, tenant.admin_key, { name });
      }
      await eventually(async () => receiver.received.length >= 2, 20_000);
      await worker.stop('SIGKILL');
      worker = await startServer({ ...env, ROLE: 'worker' });

      const delivered = () => receiver.received.filter((_entry, index) => index >= 3);
      await eventually(
        async () => new Set(delivered().map((entry) => entry.headers['webhook-id'])).size >= names.length,
        60_000,
        200,
      ).catch((error) => {
        throw new Error(`${error.message}; received ${receiver.received.map((entry) => entry.body.slice(0, 80)).join('\n')}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const ids = delivered().map((entry) => entry.headers['webhook-id']);
      expect(ids).toHaveLength(names.length);
      expect(new Set(ids).size).toBe(names.length);
      const types = delivered().map(
        (entry) => (new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>) as { type: string }).type,
      );
      expect(types.filter((type) => type === 'note.completed')).toHaveLength(5);
      expect(types.filter((type) => type === 'note.failed')).toHaveLength(1);
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  }, 120_000);
});
