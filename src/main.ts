import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { demoLoginCredentials, ensureDemoWorkspace } from './flow/demo-workspace.ts';
import { demoClinicCredentials, ensureDemoClinic } from './notes/clinics/demo-clinic.ts';
import { type Config, ConfigError, loadConfig } from './platform/config.ts';
import { DataDirInUseError } from './platform/db/data-dir-lock.ts';
import { demoDataWanted } from './platform/demo-data.ts';
import { type CredentialBlock, handOverCredentials } from './platform/first-run-credentials.ts';
import { createLogger } from './platform/logger.ts';
import { letOldGenerationGrow, releaseMemoryWhenIdle } from './platform/memory-release.ts';
import { handleEscapedErrors } from './platform/process-errors.ts';
import { startTracing, stopTracing } from './platform/tracing/tracing.ts';
import { VERSION } from './platform/version.ts';

// read config → buildApp → listen → start workers; SIGTERM/SIGINT close everything in order.

// The sandbox makes notes up; whoever reads the log learns so, and how to get real transcripts.
const SANDBOX_NOTICE =
  'transcription: sandbox: notes are simulated consultations (marked `simulated`), not transcripts of the audio; ' +
  'for real transcripts set TRANSCRIPTION_PROVIDER=openai and TRANSCRIPTION_BASE_URL (and TRANSCRIPTION_API_KEY, ' +
  'TRANSCRIPTION_MODEL) to an OpenAI-compatible speech-to-text server (docs/providers.md)';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const logger = createLogger(config);
// A signal during start-up (an orchestrator giving up on us) closes the app under our feet; what
// start-up then fails on is the shutdown, not a start-up error.
let shuttingDown = false;

try {
  // Before the app opens its database, so its SQL is traced (nothing is loaded when traces are off).
  if (await startTracing(config, VERSION)) logger.info('tracing: spans exported over OTLP');
  const app = await buildApp(config, { logger });

  // Escaped errors are sorted by handleEscapedErrors: a database fault is survived, anything else
  // shuts down through the same path as a signal, and exits 1.
  let unexpected: { error: unknown } | undefined;
  const grace = closeWithGrace(
    { delay: config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_TIMEOUT_MS, logger, skip: ['uncaughtException', 'unhandledRejection'] },
    async ({ signal }) => {
      shuttingDown = true;
      // Readiness fails first; for SHUTDOWN_DRAIN_MS requests are still served, so a load balancer
      // that polls /readyz stops sending before the listener closes and nobody is refused.
      app.vetflow.draining = true;
      if (unexpected) logger.error({ err: unexpected.error }, 'shutting down after an unexpected error');
      else logger.info({ signal, drain_ms: config.SHUTDOWN_DRAIN_MS }, 'shutting down');
      if (!unexpected && config.SHUTDOWN_DRAIN_MS > 0) await sleep(config.SHUTDOWN_DRAIN_MS);
      await app.close();
      await stopTracing().catch((error) => logger.warn({ err: error }, 'could not flush the last spans'));
      if (unexpected) process.exit(1);
    },
  );
  handleEscapedErrors(logger, (error) => {
    unexpected = { error };
    void grace.close();
  });

  // First start on an empty database: demo data whose secrets are handed over once, after listening
  // (on Postgres only with DEMO_DATA=true).
  const demo = demoDataWanted(config, app.vetflow.database);
  const demoClinic = demo ? await ensureDemoClinic(app.vetflow.database.db) : null;
  const demoLogin = demo ? await ensureDemoWorkspace(config.PASSWORD_SCRYPT_LOG_N, app.vetflow.database.db) : null;

  await app.listen({ port: config.PORT, host: config.HOST });
  if (config.ROLE !== 'api') await app.vetflow.jobs.startWorkers();
  // Shown once, on the very first start: on the terminal, or in a 0600 file whose path is logged;
  // never through the (persisted) logs. Before "vetflow started", so the file exists once it is said.
  const credentials: CredentialBlock[] = [
    ...(demoClinic ? [demoClinicCredentials(demoClinic, config.PUBLIC_BASE_URL)] : []),
    ...(demoLogin ? [demoLoginCredentials(demoLogin, config.PUBLIC_BASE_URL)] : []),
  ];
  await handOverCredentials(credentials, `${config.PUBLIC_BASE_URL}/docs`, {
    isTTY: process.stdout.isTTY === true,
    write: (text) => process.stdout.write(text),
    dataDir: config.DATA_DIR,
    logger,
  });
  logger.info(
    {
      role: config.ROLE,
      database: app.vetflow.database.kind,
      transcription: config.TRANSCRIPTION_PROVIDER,
      docs: config.ROLE === 'worker' ? undefined : `${config.PUBLIC_BASE_URL}/docs`,
    },
    'vetflow started',
  );
  if (config.TRANSCRIPTION_PROVIDER === 'sandbox') logger.warn(SANDBOX_NOTICE);
  // What start-up, then each burst of load, made V8 grow goes back to the system once the server
  // is quiet again (docs/operations.md): the first check a second after start-up.
  releaseMemoryWhenIdle(app.server, { intervalMs: 1_000, quietRequests: 2, quietIntervals: 5, grownBytes: 32 * 2 ** 20 });
  letOldGenerationGrow();
} catch (error) {
  if (shuttingDown) {
    // closeWithGrace is closing the app and exits when done.
    logger.info('start-up interrupted by shutdown');
  } else {
    if (error instanceof DataDirInUseError) process.stderr.write(`${error.message}\n`);
    else logger.fatal({ err: error }, 'vetflow could not start');
    process.exit(1);
  }
}
