import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Generous: process tests start real servers, which a loaded 2-core machine makes slow.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // Each file owns an isolated database; two at a time fits a 2-core machine.
    maxWorkers: 2,
    // A test that asserts nothing fails (expect.assertions, or any expect, in the test or its helpers).
    expect: { requireAssertions: true },
  },
});
