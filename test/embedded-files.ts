// The test files CI runs a second time on the embedded database (PGlite), after the whole suite on
// Postgres (`npm run test:embedded`, vitest.embedded.config.ts). PGlite is Postgres compiled to
// WebAssembly: the same SQL gives the same answers, so a file belongs here only when what it tests
// can differ between the two. The rule, and how to add a file: CONTRIBUTING.md, "Tests".
// `npm test` without TEST_DATABASE_URL still runs every file on the embedded database.
export const EMBEDDED_FILES = [
  // The embedded default itself: first start (`npm start`, the demo data), its data directory (one
  // process at a time), the server and the CLI opening it, a process killed while it holds it, the
  // server's thread that PGlite shares. (The quick starts, the operator journey and the retention
  // CLI open it too, but test nothing there that these do not.)
  'test/flow/cli.test.ts',
  'test/notes/hostile-audio.test.ts',
  'test/notes/live-crash.test.ts',
  'test/notes/worker-crash.test.ts',
  'test/platform/demo-data.test.ts',
  'test/platform/first-run-credentials.test.ts',
  'test/platform/processes.test.ts',
  // Migrations, and the database functions and triggers they install (extensions included).
  'test/platform/migrations.test.ts',
  'test/flow/contact-upsert-function.test.ts',
  'test/notes/note-list-version.test.ts',
  'test/notes/list-name-words.test.ts',
  // Queries that lean on what the two could do differently: extensions (unaccent, pg_trgm),
  // snapshots and transaction ids, session settings (time zone, set_config), SKIP LOCKED.
  'test/notes/list-search.test.ts',
  // The text search configuration over the unaccent dictionary, Portuguese stems, ts_headline.
  'test/notes/list-content-search.test.ts',
  'test/notes/list-totals.test.ts',
  'test/notes/note-fetch-timestamps.test.ts',
  'test/flow/contacts-upsert.test.ts',
  'test/flow/contacts-changes.test.ts',
  'test/flow/brute-force.test.ts',
  'test/notes/rate-limit.test.ts',
  // Identity columns and the batch function's write order (the audit trail), the live notes'
  // partial index and per-month sums, the erasure log's generated key in app_settings.
  'test/flow/audit-order.test.ts',
  'test/notes/live-quota.test.ts',
  'test/notes/erasure-log-key.test.ts',
  // The queue and the notifications: pg-boss's PGlite backend, cache invalidation without LISTEN
  // across processes, and the note pipeline that runs on them (its fair shares too: pg-boss's group
  // limit and priorities, and the rounds read from its rows).
  'test/platform/jobs.test.ts',
  'test/platform/cache-invalidation.test.ts',
  'test/notes/processing.test.ts',
  'test/notes/fair-processing.test.ts',
  'test/notes/webhooks-key.test.ts',
  // The owner summary's whole path: a CRM message job and the Notes job that watches it (re-sent
  // with a start delay, under a row lock), the sealed CRM token, the idempotent send.
  'test/notes/owner-summary-journey.test.ts',
];
