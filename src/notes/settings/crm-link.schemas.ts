import { z } from 'zod';
import { MessageTemplateFields } from '../../providers/messaging/port.ts';

// The settings that link a clinic to a CRM workspace and shape the owner summary's message
// (docs/notes-owner-summary.md).

export const CrmLinkPatchSchema = z
  .strictObject({
    token: z.string().trim().min(1).max(200).meta({
      description: 'A CRM key (`crm_live_…`) of the workspace, with the `messages:send` scope; stored encrypted, never shown again',
    }),
  })
  .nullable()
  .meta({
    description:
      'Links the clinic to the CRM workspace the key belongs to (the link is the key: holding one of its keys is what ' +
      'proves the clinic may send through that workspace); `null` unlinks. A key without `messages:send` → 422 ' +
      '`CRM_SCOPE_MISSING`; a malformed, unknown or revoked one → 422 `CRM_TOKEN_INVALID`.',
  });

export const CrmLinkSchema = z
  .object({
    workspace_id: z.uuid(),
    workspace_name: z.string(),
    key_prefix: z.string().meta({ description: "The key's first characters (the token itself is never shown again)" }),
  })
  .nullable()
  .meta({ id: 'NotesCrmLink', description: 'The CRM workspace owner summaries are sent through; null when unlinked' });

export const OwnerSummaryTemplateSchema = MessageTemplateFields.nullable().meta({
  id: 'OwnerSummaryTemplate',
  description:
    'The WhatsApp template owner summaries are sent in, the summary as its one parameter; null (the default) = a free-form message',
});
