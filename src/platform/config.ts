import { z } from 'zod';
import { fieldIssueOf } from './field-issue.ts';
import { SIGNING_SECRET_PATTERN } from './webhook-signature.ts';

// The only reader of process.env. Every variable is documented in .env.example; a bad value
// stops start-up with one line naming the variable (see ConfigError).

const bool = (fallback: boolean) => z.stringbool().default(fallback);
const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(fallback);
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));
const optionalUrl = optionalText.pipe(z.url().optional());
const secretKey = optionalText.pipe(
  z
    .string()
    .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'expected 32 bytes as base64 or 64 hex characters')
    .optional(),
);
const optionalPort = optionalText.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional());

const trustProxy = z
  .string()
  .default('false')
  .transform((value, ctx): boolean | number | string[] => {
    const text = value.trim();
    if (text === 'true') return true;
    if (text === 'false' || text === '') return false;
    if (/^\d+$/.test(text)) return Number(text);
    const list = text.split(',').map((part) => part.trim());
    if (list.every((part) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(part))) return list;
    ctx.addIssue({ code: 'custom', message: 'expected true, false, a hop count or a list of IPs/CIDRs' });
    return z.NEVER;
  });

const variables = z.object({
  PORT: int(3000, 0, 65535),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: optionalUrl,
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
      .optional(),
  ),
  // The database itself when DATABASE_URL is a transaction-mode pooler (PgBouncer, Supabase's port
  // 6543, Neon's pooled endpoint, RDS Proxy): migrations, their advisory lock and LISTEN go there,
  // and statements on DATABASE_URL are never prepared under a name (docs/operations.md, "Scaling out").
  DATABASE_DIRECT_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
      .optional(),
  ),
  DATABASE_POOL_MAX: int(10, 1, 200),
  // Bounds that turn a database outage into fast 503s instead of hung requests (docs/operations.md).
  DATABASE_CONNECT_TIMEOUT_MS: int(3_000, 100, 120_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(5_000, 100, 3_600_000),
  DATABASE_QUERY_TIMEOUT_MS: int(6_000, 100, 3_600_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(10_000, 100, 3_600_000),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MIGRATE_ON_START: bool(true),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  TRUST_PROXY: trustProxy,
  REQUEST_TIMEOUT_MS: int(300_000, 1_000),
  CONNECTION_TIMEOUT_MS: int(60_000, 1_000),
  KEEP_ALIVE_TIMEOUT_MS: int(72_000, 1_000),
  BODY_LIMIT_BYTES: int(1_048_576, 1_024),
  SHUTDOWN_TIMEOUT_MS: int(10_000, 1_000, 120_000),
  // On SIGTERM, /readyz fails at once but requests are still served this long before the listener
  // closes, so a load balancer takes the instance out of rotation without refused connections.
  SHUTDOWN_DRAIN_MS: int(0, 0, 120_000),
  JOB_POLLING_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  JOB_SUPERVISE_INTERVAL_SECONDS: int(60, 1, 3600),

  // Observability (docs/operations.md): Prometheus metrics on their own listener (HOST:METRICS_PORT,
  // off when unset), job queue figures read every METRICS_QUEUE_INTERVAL_SECONDS; OpenTelemetry
  // traces when an OTLP endpoint is set (the SDK reads the other standard OTEL_* variables itself).
  METRICS_PORT: optionalPort,
  METRICS_QUEUE_INTERVAL_SECONDS: int(15, 1, 3600),
  BUILD_COMMIT: z.string().trim().min(1).max(64).default('unknown'),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_SDK_DISABLED: bool(false),

  TRANSCRIPTION_PROVIDER: z.enum(['sandbox', 'openai']).default('sandbox'),
  TRANSCRIPTION_BASE_URL: optionalUrl,
  TRANSCRIPTION_API_KEY: optionalText,
  TRANSCRIPTION_MODEL: z.string().min(1).default('whisper-1'),
  TRANSCRIPTION_LANGUAGE: z
    .string()
    .regex(/^[a-z]{2}$/, 'expected an ISO 639-1 code such as pt')
    .default('pt'),
  TRANSCRIPTION_TIMEOUT_SECONDS: int(900, 10, 86_400),
  TRANSCRIPTION_HEARTBEAT_SECONDS: int(30, 10, 3600),
  TRANSCRIPTION_RETRY_DELAY_SECONDS: int(10, 1, 3600),
  TRANSCRIPTION_CONCURRENCY: int(4, 1, 64),
  // Fair shares between clinics (docs/notes-processing.md, "Scheduling"): `fair` takes each clinic's
  // jobs in turn and holds a clinic to PROCESSING_MAX_PER_CLINIC notes in flight across every worker;
  // `fifo` is first come, first served (the order before fair shares, kept to compare against).
  PROCESSING_ORDER: z.enum(['fair', 'fifo']).default('fair'),
  // Default: one worker's default TRANSCRIPTION_CONCURRENCY, so a clinic alone still fills one worker.
  PROCESSING_MAX_PER_CLINIC: int(4, 1, 64),
  // 25 MiB is OpenAI's request cap; the rest is room for the multipart envelope. 0 = unlimited.
  TRANSCRIPTION_MAX_REQUEST_BYTES: int(26_000_000, 0),
  // gpt-4o-transcribe refuses audio over 1400 s; 0 = unlimited.
  TRANSCRIPTION_MAX_REQUEST_SECONDS: int(1300, 0),
  TRANSCRIPTION_CHUNK_CONCURRENCY: int(6, 1, 32),
  TRANSCRIPTION_CHUNK_OVERLAP_SECONDS: int(4, 1, 30),
  TRANSCRIPTION_DIARIZE: bool(false),
  // Whisper keeps the last 223 tokens of a prompt (half its 448-token text context, less one). Its
  // byte-level tokenizer cuts pt-BR prose into about 3.5 characters a token, but drug names and
  // pet names (rare words, accents as two bytes) into about 2.5: 550 characters stay under 223
  // tokens for the lists the prompt is mostly made of. 0 = send no prompt.
  TRANSCRIPTION_PROMPT_MAX_CHARS: int(550, 0, 4000),
  SANDBOX_TRANSCRIPTION_DELAY_MS: int(0, 0, 600_000),
  SECTIONING_PROVIDER: z.enum(['rules', 'openai']).default('rules'),
  SECTIONING_BASE_URL: optionalUrl,
  SECTIONING_API_KEY: optionalText,
  SECTIONING_MODEL: z.string().min(1).default('gpt-4o-mini'),
  // Clinical drafting (docs/notes-drafting.md): the style a note gets when its upload does not choose one, and
  // the OpenAI-compatible chat server that writes `clinical` notes.
  NOTE_STYLE: z.enum(['verbatim', 'clinical']).default('verbatim'),
  DRAFTING_PROVIDER: z.enum(['none', 'openai']).default('none'),
  DRAFTING_BASE_URL: optionalUrl,
  DRAFTING_API_KEY: optionalText,
  DRAFTING_MODEL: z.string().min(1).default('gpt-4o-mini'),

  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: optionalText,
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: bool(true),
  S3_PREFIX: z.string().default('audio/'),

  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false),
  // Delays before each retry of a failed webhook delivery (timeouts, 429, 5xx), each with ±20 %
  // jitter; the default adds up to about 24 h. Shortened in tests.
  WEBHOOK_RETRY_SCHEDULE_SECONDS: z
    .string()
    .default('5,300,1800,7200,18000,36000,21600')
    .transform((value, ctx) => {
      const delays = value.split(',').map((part) => Number(part.trim()));
      if (delays.length === 0 || delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 7 * 86_400)) {
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated seconds, e.g. 5,300,1800' });
        return z.NEVER;
      }
      return delays;
    }),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 60_000),
  WEBHOOK_DISABLE_AFTER_SECONDS: int(259_200, 1),
  WEBHOOK_RETENTION_DAYS: int(30, 1, 3650),
  // AES-256-GCM key for webhook signing secrets at rest: 32 bytes as base64 or 64 hex characters.
  // Required with DATABASE_URL (docs/webhooks.md); after a rotation the old key goes in _PREVIOUS.
  WEBHOOK_SECRET_KEY: secretKey,
  WEBHOOK_SECRET_KEY_PREVIOUS: secretKey,
  // HMAC key of the Notes erasure log's external id digests: 32 bytes as base64 or 64 hex
  // characters. Unset: a key generated once and kept in the database (docs/privacy.md). After a
  // rotation the old key goes in _PREVIOUS, so rows it keyed are still found.
  ERASURE_LOG_KEY: secretKey,
  ERASURE_LOG_KEY_PREVIOUS: secretKey,
  REDIS_URL: optionalText.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'expected a redis:// URL')
      .optional(),
  ),

  AUDIO_MAX_BYTES: int(104_857_600, 1),
  AUDIO_MIN_SECONDS: int(10, 0),
  AUDIO_MAX_SECONDS: int(3600, 1),
  // A live note with no new part for this long is completed with the parts it has (docs/notes-live.md).
  LIVE_CAPTURE_IDLE_SECONDS: int(7200, 1, 7 * 86_400),
  // A live part (with the overlap before it) longer than this goes to the speech-to-text server as
  // parallel requests of about this length, so the last part costs about a second at the end of the
  // visit; 0 = each part in one request (least billed audio). docs/notes-live.md#when-audio-is-sent
  LIVE_PART_REQUEST_SECONDS: int(20, 0, 600),
  // Retries accepted per failed note: each runs speech-to-text and drafting again (and is charged
  // to the clinic's quota), so a client looping on retry cannot make one note cost without end.
  NOTE_MAX_RETRIES: int(3, 0, 100),
  NOTES_LIST_COUNT_LIMIT: int(10_000, 1),
  RATE_LIMIT_ADMINISTRATOR_PER_MINUTE: int(1000, 1),
  RATE_LIMIT_EDITOR_PER_MINUTE: int(500, 1),
  RATE_LIMIT_VIEWER_PER_MINUTE: int(200, 1),
  CRM_RATE_LIMIT_PER_MINUTE: int(300, 1),
  // Contacts per minute and key in batch upserts, on top of the request limit (docs/flow-sync.md).
  CRM_BATCH_ITEMS_PER_MINUTE: int(10_000, 1),

  // Brute-force guard: more than AUTH_FAILURE_LIMIT failed authentications from one address (an
  // IPv6 /64) within the window blocks that address (429) for AUTH_BLOCK_SECONDS; logins also count
  // per account, with a backoff up to AUTH_ACCOUNT_BACKOFF_MAX_SECONDS between attempts, and at
  // most AUTH_LOGIN_CONCURRENCY logins per address and per account are checked at once (per process).
  AUTH_FAILURE_LIMIT: int(20, 1),
  AUTH_FAILURE_WINDOW_SECONDS: int(600, 1),
  AUTH_BLOCK_SECONDS: int(600, 1),
  AUTH_ACCOUNT_BACKOFF_MAX_SECONDS: int(60, 0, 3600),
  AUTH_LOGIN_CONCURRENCY: int(4, 1, 1000),
  CRM_SESSION_TTL_MINUTES: int(720, 1),
  // A CRM session unused this long ends (an unattended reception computer), whatever its TTL.
  CRM_SESSION_IDLE_MINUTES: int(30, 1),
  // scrypt cost as log2(N) for new password hashes (r=8, p=1); 17 is OWASP's minimum (128 MiB).
  PASSWORD_SCRYPT_LOG_N: int(17, 14, 20),

  // CRM contacts and surveys: audit retention, and where survey messages go.
  AUDIT_RETENTION_DAYS: int(90, 1, 3650),
  // Retention (docs/privacy.md), read by every process that runs it (workers' daily job, the CLI's
  // `retention run`): days of contact change feed, hours of stored Idempotency-Key answers. 0 keeps
  // nothing older than the run.
  CONTACT_CHANGES_RETENTION_DAYS: int(30, 0, 3650),
  IDEMPOTENCY_RETENTION_HOURS: int(48, 0, 87_600),
  // The demo clinic and workspace (keys and login valid 30 days) are made on the first start of an
  // empty embedded database; on Postgres only when this is true.
  DEMO_DATA: bool(false),
  MESSAGING_PROVIDER: z.enum(['record', 'webhook']).default('record'),
  MESSAGING_WEBHOOK_URL: optionalUrl,
  // The first wait before a failed survey message is sent again (doubling each time, 5 retries).
  MESSAGING_RETRY_DELAY_SECONDS: int(10, 1, 3600),
  // Standard Webhooks signing secret of the messaging webhook (`whsec_` + base64 of ≥ 24 random
  // bytes): the receiver verifies with it that a message came from this server.
  MESSAGING_WEBHOOK_SECRET: optionalText.pipe(
    z.string().regex(SIGNING_SECRET_PATTERN, 'expected whsec_ followed by base64 of at least 24 random bytes').optional(),
  ),
});

/** Every environment variable the service reads. */
export const CONFIG_VARIABLES = Object.keys(variables.shape);

const schema = variables
  .superRefine((env, ctx) => {
    if (env.TRANSCRIPTION_PROVIDER === 'openai' && !env.TRANSCRIPTION_BASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['TRANSCRIPTION_BASE_URL'], message: 'required when TRANSCRIPTION_PROVIDER=openai' });
    }
    if (env.TRANSCRIPTION_MAX_REQUEST_SECONDS > 0 && env.TRANSCRIPTION_MAX_REQUEST_SECONDS < 4 * env.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRANSCRIPTION_MAX_REQUEST_SECONDS'],
        message: 'must be 0 or at least 4 × TRANSCRIPTION_CHUNK_OVERLAP_SECONDS',
      });
    }
    if (env.LIVE_PART_REQUEST_SECONDS > 0 && env.LIVE_PART_REQUEST_SECONDS < 4 * env.TRANSCRIPTION_CHUNK_OVERLAP_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['LIVE_PART_REQUEST_SECONDS'],
        message: 'must be 0 or at least 4 × TRANSCRIPTION_CHUNK_OVERLAP_SECONDS',
      });
    }
    if (env.SECTIONING_PROVIDER === 'openai' && !env.SECTIONING_BASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['SECTIONING_BASE_URL'], message: 'required when SECTIONING_PROVIDER=openai' });
    }
    if (env.DRAFTING_PROVIDER === 'openai' && !env.DRAFTING_BASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DRAFTING_BASE_URL'], message: 'required when DRAFTING_PROVIDER=openai' });
    }
    if (env.NOTE_STYLE === 'clinical' && env.DRAFTING_PROVIDER === 'none') {
      ctx.addIssue({ code: 'custom', path: ['NOTE_STYLE'], message: 'clinical needs a drafter: set DRAFTING_PROVIDER=openai' });
    }
    if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when STORAGE_DRIVER=s3' });
    }
    if (env.MESSAGING_PROVIDER === 'webhook' && !env.MESSAGING_WEBHOOK_URL) {
      ctx.addIssue({ code: 'custom', path: ['MESSAGING_WEBHOOK_URL'], message: 'required when MESSAGING_PROVIDER=webhook' });
    }
    if (env.MESSAGING_PROVIDER === 'webhook' && !env.MESSAGING_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['MESSAGING_WEBHOOK_SECRET'],
        message: 'required when MESSAGING_PROVIDER=webhook (every message is signed): echo "whsec_$(openssl rand -base64 32)"',
      });
    }
    if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_DIRECT_URL'], message: 'needs DATABASE_URL (the pooled URL it complements)' });
    }
    if (env.DATABASE_QUERY_TIMEOUT_MS < env.DATABASE_STATEMENT_TIMEOUT_MS) {
      // The client must outwait the server, or a slow statement is abandoned while it still runs.
      ctx.addIssue({ code: 'custom', path: ['DATABASE_QUERY_TIMEOUT_MS'], message: 'must be at least DATABASE_STATEMENT_TIMEOUT_MS' });
    }
    if (env.AUDIO_MIN_SECONDS >= env.AUDIO_MAX_SECONDS) {
      ctx.addIssue({ code: 'custom', path: ['AUDIO_MIN_SECONDS'], message: 'must be below AUDIO_MAX_SECONDS' });
    }
  })
  .transform((env) => ({
    ...env,
    PUBLIC_BASE_URL: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
  }));

export type Config = Readonly<z.output<typeof schema>>;
export type ConfigInput = Partial<Record<keyof z.input<typeof schema>, string>>;

/** A configuration that cannot start the service; `message` is the single line shown to the operator. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = readProcessEnv()): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const { field, reason } = fieldIssueOf(parsed.error.issues[0], 'environment');
    // Never echo the value: it may be a secret (an API key, a database password).
    throw new ConfigError(`Invalid configuration: ${field}: ${reason}`);
  }
  return Object.freeze(parsed.data);
}

function readProcessEnv(): Record<string, string | undefined> {
  // A local .env is a convenience for laptops; real environment variables win over it.
  try {
    process.loadEnvFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return process.env;
}
