import type { Db } from '../../platform/db/client.ts';
import { sql } from '../../platform/db/drizzle.ts';

/**
 * What replaces a personal value that cannot simply be removed (a required field: a contact's name
 * and phone, a pet's name, a message's body, and every value of the contact's audit entries). An
 * optional field becomes null. The marker is fixed text, the same everywhere (docs/privacy.md), and
 * can never match an upsert: a phone is stored in E.164, and identifiers that could be any text
 * (external_id, document) become null, which `=` never matches.
 */
export const ERASED = '[erased]';

/**
 * The contact itself, in one UPDATE (whose change-feed trigger writes the `erased` version, with no
 * projection): deleted (if it was not), erased, every personal column null or the marker.
 */
export async function anonymiseContact(id: string, tx: Db): Promise<Date> {
  const result = (await tx.execute(sql`
    update contacts set external_id = null, document = null, name = ${ERASED}, phone = ${ERASED}, email = null,
      address = null, source = null, profile_pic_url = null, legacy_id = null,
      name_edited_at = null, name_edited_by = null, phone_edited_at = null, phone_edited_by = null,
      deleted_at = coalesce(deleted_at, now()), erased_at = now(), updated_at = now()
    where id = ${id}
    returning erased_at`)) as unknown as { rows: { erased_at: Date | string }[] };
  return new Date(result.rows[0]!.erased_at);
}

/** Its pets' names (species, breed and birth date describe the animal, not a person: kept). */
export async function anonymisePets(contactId: string, tx: Db): Promise<void> {
  await tx.execute(sql`update contact_pets set name = ${ERASED} where contact_id = ${contactId}`);
}

/** The messages of its chats: what was written to the person, why, and the provider's id for it. */
export async function anonymiseMessages(contactId: string, tx: Db): Promise<void> {
  await tx.execute(sql`
    update chat_messages set body = ${ERASED}, reason = null, provider_message_id = null
    where chat_id in (select id from chats where contact_id = ${contactId})`);
}

/**
 * Its audit entries keep which fields changed and when, not the values: every non-null `before` and
 * `after` becomes the marker (but the times of `deleted_at`, which are no one's personal data).
 */
export async function anonymiseAuditEntries(workspaceId: string, contactId: string, tx: Db): Promise<void> {
  await tx.execute(sql`
    update contact_external_api_audit_logs a set changes = coalesce((
      select jsonb_object_agg(e.field, case when e.field = 'deleted_at' then e.value else jsonb_build_object(
        'before', case when coalesce(jsonb_typeof(e.value -> 'before'), 'null') <> 'null' then to_jsonb(${ERASED}::text) else 'null'::jsonb end,
        'after', case when coalesce(jsonb_typeof(e.value -> 'after'), 'null') <> 'null' then to_jsonb(${ERASED}::text) else 'null'::jsonb end) end)
      from jsonb_each(a.changes) e(field, value)), '{}'::jsonb)
    where a.workspace_id = ${workspaceId} and a.contact_id = ${contactId} and a.changes <> '{}'::jsonb`);
}

/**
 * Its earlier versions in the change feed keep their place, kind and changed field names; their
 * projections keep the id and times, with name and phone the marker and every other field null.
 */
export async function anonymiseFeedVersions(workspaceId: string, contactId: string, tx: Db): Promise<void> {
  await tx.execute(sql`
    update contact_changes set contact = contact || jsonb_build_object('external_id', null, 'document', null,
      'name', ${ERASED}::text, 'phone', ${ERASED}::text, 'email', null, 'address', null, 'source', null, 'profile_pic_url', null)
    where workspace_id = ${workspaceId} and contact_id = ${contactId} and contact is not null`);
}
