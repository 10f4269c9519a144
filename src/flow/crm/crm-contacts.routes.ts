import { z } from 'zod';
import { metaOf, pageOf } from '../../platform/http/pagination.ts';
import { errorResponses, TimestampSchema, toTimestamp, UuidSchema } from '../../platform/http/schemas.ts';
import type { AppInstance } from '../../platform/http/types.ts';
import { CONTACT_LIMITS, ContactProjection, toProjection } from '../contacts/contact.schemas.ts';
import type { ContactRow, PetRow } from '../contacts/contacts.repo.ts';
import { WorkspaceParams } from '../http/params.ts';
import { sessionCaller } from '../request-context.ts';
import type { CrmContactsService } from './crm-contacts.service.ts';

const ContactParams = WorkspaceParams.extend({ contact_id: UuidSchema });
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const PageMeta = z.object({ total: z.int(), page: z.int(), limit: z.int(), total_pages: z.int() });

const Pet = z
  .object({ id: UuidSchema, name: z.string(), species: z.string(), breed: z.string().nullable(), birth_date: z.iso.date().nullable() })
  .meta({ id: 'CrmPet' });
const Edited = z.object({ at: TimestampSchema, by_user_id: UuidSchema.nullable() }).nullable();
const FullContact = ContactProjection.extend({
  legacy_id: z.int().nullable(),
  name_edited_in_flow: Edited,
  phone_edited_in_flow: Edited,
  pets: z.array(Pet),
}).meta({ id: 'CrmContact' });

const ContactEditBody = z.strictObject({
  name: z.string().min(1).max(CONTACT_LIMITS.name).optional(),
  phone: z.string().min(1).max(CONTACT_LIMITS.phone).optional(),
  external_id: z.string().max(CONTACT_LIMITS.external_id).nullable().optional(),
  document: z.string().max(CONTACT_LIMITS.document).nullable().optional(),
  email: z.string().max(CONTACT_LIMITS.email).nullable().optional(),
  address: z.string().max(CONTACT_LIMITS.address).nullable().optional(),
  source: z.string().max(CONTACT_LIMITS.source).nullable().optional(),
  profile_pic_url: z.string().max(CONTACT_LIMITS.profile_pic_url).nullable().optional(),
});
const PetBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  species: z.string().trim().min(1).max(50),
  breed: z.string().max(100).nullable().optional(),
  birth_date: z.iso.date().nullable().optional(),
});

const toPet = (pet: PetRow) => ({ id: pet.id, name: pet.name, species: pet.species, breed: pet.breed, birth_date: pet.birthDate });
const edited = (at: Date | null, by: string | null) => (at ? { at: toTimestamp(at), by_user_id: by } : null);
function toFull(contact: ContactRow, pets: PetRow[]) {
  return {
    ...toProjection(contact),
    legacy_id: contact.legacyId,
    name_edited_in_flow: edited(contact.nameEditedAt, contact.nameEditedBy),
    phone_edited_in_flow: edited(contact.phoneEditedAt, contact.phoneEditedBy),
    pets: pets.map(toPet),
  };
}

const tags = ['CRM contacts'];

/** `W/contacts`: the CRM's own view of contacts (session; any user of the workspace). */
export async function crmContactRoutes(app: AppInstance, { contacts }: { contacts: CrmContactsService }) {
  app.get(
    '/api/workspaces/:workspace_id/contacts',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'listWorkspaceContacts',
        summary: 'List contacts',
        description: 'Active contacts, most recently updated first; `q` matches name, phone or document (case-insensitive, partial).',
        tags,
        params: WorkspaceParams,
        querystring: PageQuery.extend({ q: z.string().max(200).optional() }),
        response: { 200: z.object({ data: z.array(ContactProjection), meta: PageMeta }), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { rows, total } = await contacts.listWorkspaceContacts(sessionCaller(request), request.params.workspace_id, {
        search: request.query.q,
        ...page,
      });
      return { data: rows.map(toProjection), meta: metaOf(page, total) };
    },
  );

  app.get(
    '/api/workspaces/:workspace_id/contacts/:contact_id',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'getWorkspaceContact',
        summary: 'Read a contact with its pets',
        description: 'The full CRM record, including the legacy id and who last edited name/phone in the CRM.',
        tags,
        params: ContactParams,
        response: { 200: FullContact, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { contact, pets } = await contacts.getFullContact(
        sessionCaller(request),
        request.params.workspace_id,
        request.params.contact_id,
      );
      return toFull(contact, pets);
    },
  );

  app.patch(
    '/api/workspaces/:workspace_id/contacts/:contact_id',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'editWorkspaceContact',
        summary: 'Edit a contact',
        description:
          'Same field rules as the external upsert (phone normalised, 409 on duplicates). A change of name or phone marks it ' +
          '"edited in flow": under the `flow` sync policy the ERP no longer overwrites it.',
        tags,
        params: ContactParams,
        body: ContactEditBody,
        response: { 200: FullContact, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { contact, pets } = await contacts.editContact(
        sessionCaller(request),
        request.params.workspace_id,
        request.params.contact_id,
        request.body,
      );
      return toFull(contact, pets);
    },
  );

  app.post(
    '/api/workspaces/:workspace_id/contacts/:contact_id/pets',
    {
      config: { access: { crmSessionRole: 'member' } },
      schema: {
        operationId: 'addContactPet',
        summary: 'Add a pet to a contact',
        description: 'Pets are CRM data only: the external API never shows them.',
        tags,
        params: ContactParams,
        body: PetBody,
        response: { 201: Pet, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const pet = await contacts.addPet(sessionCaller(request), request.params.workspace_id, request.params.contact_id, request.body);
      return reply.code(201).send(toPet(pet));
    },
  );
}
