import { readFileSync } from 'node:fs';

/** vetflow's version, from package.json (build info in metrics, the service version in traces). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
