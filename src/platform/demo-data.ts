import type { Config } from './config.ts';
import type { Database } from './db/client.ts';

/** Days the demo clinic's key and the demo workspace's login work: long enough to try, never a production credential. */
export const DEMO_CREDENTIALS_DAYS = 30;

/**
 * Whether a first start may create the demo clinic and workspace: always on the embedded database
 * (a laptop trying vetflow), on Postgres only with DEMO_DATA=true — a production database never
 * gets credentials printed at start-up by accident.
 */
export function demoDataWanted(config: Pick<Config, 'DEMO_DATA'>, database: Pick<Database, 'kind'>): boolean {
  return database.kind === 'embedded' || config.DEMO_DATA;
}
