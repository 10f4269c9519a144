import type { ApiDescription } from '../platform/http/openapi.ts';
import type { AppInstance } from '../platform/http/types.ts';

export const notesApiDescription: ApiDescription = {
  prefix: '/notes/v1',
  title: 'vetflow Notes API',
  version: '1.0.0',
  description:
    'Upload the audio of a veterinary consultation, get it transcribed asynchronously and read the ' +
    'resulting structured note. Every error has the flat body `{error, message, code, details?, request_id}`.',
  securitySchemes: {
    NotesApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: '`vnk_` + 32 lowercase hex characters' },
  },
};

/** The /notes/v1 tree: routes are registered here as the features land. */
export async function notesApi(_app: AppInstance) {}
