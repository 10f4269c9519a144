import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  /** A client on the benchmark's database, for reading timestamps the API does not expose. */
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A fresh, empty database on the server of `adminUrl`, dropped (connections and all) by `drop()`. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `vetflow_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let client: pg.Client | undefined;
  return {
    url: url.toString(),
    async query(text, values) {
      if (!client) {
        client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
      }
      return (await client.query(text, values)).rows;
    },
    async drop() {
      await client?.end().catch(() => {});
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
