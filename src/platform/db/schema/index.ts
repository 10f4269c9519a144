// One drizzle schema for both APIs: every table file is re-exported here, and drizzle-kit
// generates migrations/ from this module.
export * from './app-settings.ts';
export * from './clinics.ts';
export * from './notes-api-key-usage.ts';
export * from './notes-api-keys.ts';
export * from './rate-limit-counters.ts';
