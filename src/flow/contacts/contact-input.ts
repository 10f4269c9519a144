import { AppError } from '../../platform/errors.ts';
import { normalizePhone } from '../../platform/phone.ts';
import { parseInput } from '../http/parse-input.ts';
import { type ContactUpsert, ContactUpsertBody } from './contact.schemas.ts';
import type { ContactFields } from './contacts.repo.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function invalid(field: string, reason: string): AppError {
  return new AppError('INVALID_REQUEST', `Invalid ${field}: ${reason}`, { field, reason });
}

/** Trims; "" becomes null (ERPs send empty strings for "no value"). */
function text(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * One upsert's body as the ERP sent it (a PUT's body, or one item of a batch), checked against
 * the schema: `legacy_id` → 400 LEGACY_ID_NOT_ACCEPTED, anything else that does not fit → 400.
 */
export function parseContactUpsert(raw: unknown): ContactUpsert {
  if (raw && typeof raw === 'object' && 'legacy_id' in raw) {
    throw new AppError('LEGACY_ID_NOT_ACCEPTED', 'legacy_id cannot be set through the external API', {
      field: 'legacy_id',
      reason: 'not accepted',
    });
  }
  return parseInput(ContactUpsertBody, raw);
}

export function phoneOrThrow(value: string, field = 'phone'): string {
  const phone = normalizePhone(value);
  if (!phone)
    throw new AppError('INVALID_PHONE', `Invalid ${field}: not a valid phone number`, { field, reason: 'not a valid phone number' });
  return phone;
}

/** Shared by the external upsert and the CRM-side edit: the same rules for the same fields. */
export function normalizeContactFields(
  input: Omit<ContactUpsert, 'name' | 'phone'> & { name?: string | null; phone?: string | null },
): ContactFields {
  const name = text(input.name);
  if (input.name !== undefined && name == null) throw invalid('name', 'must not be empty or null');
  if (input.phone !== undefined && text(input.phone) == null) throw invalid('phone', 'must not be empty or null');
  const email = text(input.email);
  if (email && !EMAIL.test(email)) throw invalid('email', 'not an e-mail address');
  const profilePicUrl = text(input.profile_pic_url);
  if (profilePicUrl && !/^https?:\/\/\S+$/i.test(profilePicUrl)) throw invalid('profile_pic_url', 'must be an http(s) URL');
  return {
    externalId: text(input.external_id),
    document: text(input.document),
    name: name ?? undefined,
    phone: input.phone ? phoneOrThrow(input.phone) : undefined,
    email,
    address: text(input.address),
    source: text(input.source),
    profilePicUrl,
  };
}

/** Fields whose value differs from the row's (absent fields never do). */
export function changedFields<R extends Record<string, unknown>>(row: R, fields: Partial<R>): (keyof R)[] {
  return (Object.keys(fields) as (keyof R)[]).filter((key) => fields[key] !== undefined && fields[key] !== row[key]);
}
