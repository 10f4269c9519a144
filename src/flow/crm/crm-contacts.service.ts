import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import { assertMember } from '../access.ts';
import type { CrmCaller } from '../callers.ts';
import type { ContactUpsert } from '../contacts/contact.schemas.ts';
import { changedFields, normalizeContactFields } from '../contacts/contact-input.ts';
import {
  type ContactChanges,
  type ContactRow,
  findActiveHolder,
  findContact,
  insertPet,
  listContacts,
  listPets,
  markChangesByCrmUser,
  type PetRow,
  updateContact,
} from '../contacts/contacts.repo.ts';

/** What CRM users read and edit contacts with. */
export interface CrmContactsDeps {
  db: Db;
}

export type ContactEdit = Omit<ContactUpsert, 'name' | 'phone'> & { name?: string; phone?: string };
export interface NewPet {
  name: string;
  species: string;
  breed?: string | null;
  birth_date?: string | null;
}

function listWorkspaceContacts(
  { db }: CrmContactsDeps,
  caller: CrmCaller,
  workspaceId: string,
  options: { search?: string; limit: number; offset: number },
) {
  assertMember(caller, workspaceId);
  return listContacts(workspaceId, options, db);
}

/** The CRM's full record: the contact with its pets (deleted contacts are not shown). */
async function getFullContact(
  { db }: CrmContactsDeps,
  caller: CrmCaller,
  workspaceId: string,
  contactId: string,
): Promise<{ contact: ContactRow; pets: PetRow[] }> {
  assertMember(caller, workspaceId);
  const contact = await findContact(workspaceId, contactId, {}, db);
  if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
  return { contact, pets: await listPets(contactId, db) };
}

/**
 * A CRM user's edit. A change of name or phone marks it "edited in flow" (who and when), which the
 * `flow` sync policy then protects from the ERP's upserts. Same field rules as the external upsert.
 */
async function editContact(deps: CrmContactsDeps, caller: CrmCaller, workspaceId: string, contactId: string, input: ContactEdit) {
  const { db } = deps;
  assertMember(caller, workspaceId);
  const fields = normalizeContactFields(input);
  const userId = caller.kind === 'user' ? caller.userId : null;
  try {
    await db.transaction(async (tx) => {
      const contact = await findContact(workspaceId, contactId, { lock: true }, tx);
      if (!contact) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
      const changes: ContactChanges = {};
      for (const key of changedFields(contact as typeof fields, fields)) (changes as Record<string, unknown>)[key] = fields[key];
      const now = new Date();
      if (changes.name !== undefined) Object.assign(changes, { nameEditedAt: now, nameEditedBy: userId });
      if (changes.phone !== undefined) Object.assign(changes, { phoneEditedAt: now, phoneEditedBy: userId });
      if (Object.keys(changes).length > 0) {
        // The change feed shows this version as the CRM user's (source `crm_user`).
        await markChangesByCrmUser(tx);
        await updateContact(contact.id, changes, tx);
      }
    });
  } catch (error) {
    const index = uniqueViolation(error);
    if (index === 'contacts_workspace_phone_active_key' || index === 'contacts_workspace_external_id_active_key') {
      const phone = index.includes('phone');
      const holder = await findActiveHolder(workspaceId, phone ? 'phone' : 'externalId', (phone ? fields.phone : fields.externalId)!, db);
      throw new AppError(phone ? 'DUPLICATE_PHONE' : 'DUPLICATE_EXTERNAL_ID', 'Another contact of this workspace already has this value', {
        field: phone ? 'phone' : 'external_id',
        conflicting_contact_id: holder ?? null,
      });
    }
    throw error;
  }
  return getFullContact(deps, caller, workspaceId, contactId);
}

/**
 * A pet of an active contact. The contact is share-locked while the pet is written: an erasure of
 * it waits for the pet (then anonymises its name), or ran first, and then the contact is no longer
 * found (404 CONTACT_NOT_FOUND), as for a deleted one.
 */
async function addPet({ db }: CrmContactsDeps, caller: CrmCaller, workspaceId: string, contactId: string, input: NewPet): Promise<PetRow> {
  assertMember(caller, workspaceId);
  return db.transaction(async (tx) => {
    if (!(await findContact(workspaceId, contactId, { lock: 'share' }, tx))) throw new AppError('CONTACT_NOT_FOUND', 'Contact not found');
    return insertPet(
      {
        contactId,
        name: input.name.trim(),
        species: input.species.trim(),
        breed: input.breed?.trim() || null,
        birthDate: input.birth_date ?? null,
      },
      tx,
    );
  });
}

/** Contacts as CRM users see and edit them, bound to the database once. */
export function crmContactsService(deps: CrmContactsDeps) {
  return bindService(deps, { listWorkspaceContacts, getFullContact, editContact, addPet });
}

export type CrmContactsService = ReturnType<typeof crmContactsService>;
