// One drizzle schema for both APIs: every table file is re-exported here, and drizzle-kit
// generates migrations/ from this module.
export * from './app-settings.ts';
