import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { TestProject } from 'vitest/node';
import { type Database, openEmbedded, openPostgres } from '../../src/platform/db/client.ts';
import { loadPglite } from '../../src/platform/db/drizzle.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { adminDatabaseUrl, directDatabaseUrl, withDatabaseName } from './test-env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string | null;
    /** On the embedded database: a PGlite data-directory tarball of the migrated schema. */
    embeddedTemplate: string | null;
  }
}

// The schema (ours and pg-boss's) is built once per run. On real Postgres it goes into a template
// database that every test file clones with CREATE DATABASE ... TEMPLATE, which takes milliseconds;
// on the embedded database into a PGlite data-directory tarball every test file's in-memory
// database starts from (createTestDatabase).
export default async function setup(project: TestProject) {
  // Behind a pooler, the schema is built on the server itself (migrations need a session).
  const adminUrl = directDatabaseUrl() ?? adminDatabaseUrl();
  if (!adminUrl) {
    project.provide('templateDatabase', null);
    const dir = mkdtempSync(path.join(tmpdir(), 'vetflow-embedded-template-'));
    project.provide('embeddedTemplate', await migratedEmbeddedTarball(dir));
    return () => rmSync(dir, { recursive: true, force: true });
  }
  project.provide('embeddedTemplate', null);
  const template = `vetflow_tpl_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  const templateUrl = withDatabaseName(adminUrl, template);
  const database = openPostgres(templateUrl, 2);
  try {
    await runMigrations(database);
  } finally {
    await database.close();
  }
  await createBossSchema({ connectionString: templateUrl, max: 1 });
  project.provide('templateDatabase', template);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}

async function createBossSchema(options: Database['bossOptions']): Promise<void> {
  const boss = new PgBoss({ ...options, supervise: false, schedule: false });
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

/**
 * Migrates an embedded database in `dir` the way the app does (openEmbedded, runMigrations,
 * pg-boss's own schema), then writes its data directory as a tarball there and returns its path.
 */
async function migratedEmbeddedTarball(dir: string): Promise<string> {
  const dataDir = path.join(dir, 'pglite');
  const database = await openEmbedded(dataDir);
  try {
    await runMigrations(database);
    await createBossSchema(database.bossOptions);
  } finally {
    await database.close();
  }
  const { PGlite, pg_trgm, unaccent } = loadPglite();
  const client = await PGlite.create({ dataDir, extensions: { pg_trgm, unaccent } });
  try {
    const tarball = path.join(dir, 'migrated.tar');
    writeFileSync(tarball, new Uint8Array(await (await client.dumpDataDir('none')).arrayBuffer()));
    return tarball;
  } finally {
    await client.close();
  }
}
