// One drizzle schema for both APIs: every table file is re-exported here, and drizzle-kit
// generates migrations/ from this module.
export * from './app-settings.ts';
export * from './auth-blocks.ts';
export * from './auth-failures.ts';
export * from './chat-messages.ts';
export * from './chats.ts';
export * from './clinics.ts';
export * from './contact-audit-logs.ts';
export * from './contact-pets.ts';
export * from './contacts.ts';
export * from './crm-api-keys.ts';
export * from './crm-sessions.ts';
export * from './crm-users.ts';
export * from './idempotency-keys.ts';
export * from './leads.ts';
export * from './note-section-versions.ts';
export * from './note-sections.ts';
export * from './note-transcript-chunks.ts';
export * from './notes.ts';
export * from './notes-api-key-usage.ts';
export * from './notes-api-keys.ts';
export * from './pipeline-stages.ts';
export * from './rate-limit-counters.ts';
export * from './webhook-deliveries.ts';
export * from './webhook-endpoints.ts';
export * from './webhook-events.ts';
export * from './workspaces.ts';
