import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { EMBEDDED_FILES } from './test/embedded-files.ts';
import base from './vitest.config.ts';

// CI's second test stage (`npm run test:embedded`): the files in test/embedded-files.ts, on the
// embedded database whatever the shell says (the Postgres stage runs the whole suite).
delete process.env.TEST_DATABASE_URL;
delete process.env.DATABASE_URL;

const missing = EMBEDDED_FILES.filter((file) => !existsSync(file));
if (missing.length > 0) throw new Error(`test/embedded-files.ts names files that do not exist: ${missing.join(', ')}`);

export default defineConfig({ ...base, test: { ...base.test, include: [...EMBEDDED_FILES] } });
