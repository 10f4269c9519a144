import type { MessagingProvider } from './port.ts';

/**
 * The default: no outside service. The message stays recorded in the chat (marked sent), so a CRM
 * without a messaging integration still shows which survey went to whom.
 */
export function createRecordProvider(): MessagingProvider {
  return { name: 'record', send: async () => ({ providerMessageId: null }) };
}
