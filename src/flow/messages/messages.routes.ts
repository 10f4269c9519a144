import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import { errorResponses, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { WorkspaceParams } from '../http/params.ts';
import { parseInput } from '../http/parse-input.ts';
import { keyCaller } from '../request-context.ts';
import { MESSAGE_BODY_MAX, QueuedMessage, SendMessageBody } from './message.schemas.ts';
import type { MessagesService } from './messages.service.ts';

const tags = ['CRM external: messages'];

const DESCRIPTION =
  "Queues a message to the contact's newest chat (a WhatsApp chat is opened when the contact has none) and answers " +
  '202 with it, `status: "queued"`. A job delivers it through the configured messaging provider (`MESSAGING_PROVIDER`: ' +
  '`record` keeps it in the chat only; `webhook` posts it, signed like the note webhooks, to `MESSAGING_WEBHOOK_URL`), ' +
  'retried with backoff, and marks it `sent` or, after the last retry, `failed` — as survey messages are. `kind`: ' +
  '`visit_summary`, `reminder` or `other`. With a `template` (`{name, language}`, a WhatsApp template approved for the ' +
  "sender) the provider's payload carries it, with the body as its one parameter. " +
  `The body is sent word for word (1-${MESSAGE_BODY_MAX} characters). ` +
  '`Idempotency-Key` replays the first answer for 24 h and queues nothing again (the same key with another body → 422 ' +
  '`IDEMPOTENCY_KEY_REUSED`). A deleted, erased or unknown contact → 404 `CONTACT_NOT_FOUND`. Erasing the contact ' +
  'later erases its messages with it. Needs the `messages:send` scope.';

/**
 * `/external/contacts/{contact_id}/messages` (the key names the workspace) and the same under
 * `/external/workspaces/{workspace_id}/…`, like every other contact route: registered inside `externalApi`.
 */
export async function externalMessageRoutes(app: AppInstance, { messages }: { messages: MessagesService }) {
  const send = (operationId: string, params: z.ZodObject) => ({
    config: { access: { crmScope: 'messages:send' as const } },
    attachValidation: true,
    schema: {
      operationId,
      summary: 'Send a message to a contact',
      description: DESCRIPTION,
      tags,
      params,
      body: SendMessageBody,
      response: { 202: QueuedMessage, ...errorResponses(400, 401, 403, 404, 422, 429) },
    },
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { contact_id } = request.params as { contact_id: string };
    const input = parseInput(SendMessageBody, request.body);
    const answer = await messages.sendMessage(keyCaller(request), contact_id, input, idempotencyKeyOf(request));
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    reply.code(answer.statusCode);
    return answer.body;
  };

  app.post('/contacts/:contact_id/messages', send('sendContactMessage', z.object({ contact_id: UuidSchema })), handler);
  app.post(
    '/workspaces/:workspace_id/contacts/:contact_id/messages',
    send('sendWorkspaceContactMessage', WorkspaceParams.extend({ contact_id: UuidSchema })),
    handler,
  );
}
