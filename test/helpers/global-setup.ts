import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../../src/platform/db/client.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { adminDatabaseUrl, withDatabaseName } from './test-env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string | null;
  }
}

// On real Postgres the schema (ours and pg-boss's) is built once per run in a template database;
// every test file then clones it with CREATE DATABASE ... TEMPLATE, which takes milliseconds.
export default async function setup(project: TestProject) {
  const adminUrl = adminDatabaseUrl();
  if (!adminUrl) {
    project.provide('templateDatabase', null);
    return;
  }
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
  const boss = new PgBoss({ connectionString: templateUrl, max: 1, supervise: false, schedule: false });
  await boss.start();
  await boss.stop({ graceful: false, close: true });
  project.provide('templateDatabase', template);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}
