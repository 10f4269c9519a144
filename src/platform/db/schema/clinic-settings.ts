import { integer, jsonb, pgTable, sql, text, timestamp, uuid } from '../drizzle.ts';
import { clinics } from './clinics.ts';

/**
 * A clinic's Notes settings, changed by its administrators (`PATCH /notes/v1/settings`). No row
 * means every setting at its default; the first change writes the row.
 */
export const clinicSettings = pgTable('clinic_settings', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  /** Slug of the template a note uses when its upload names none. */
  defaultTemplate: text('default_template').notNull().default('padrao'),
  /** The clinic's overrides of the default vital ranges: species → range key → {min, max} (notes/vitals/reference-ranges.ts). */
  referenceRanges: jsonb('reference_ranges')
    .$type<Record<string, Record<string, { min?: number | null; max?: number | null }>>>()
    .notNull()
    .default(sql`'{}'::jsonb`),
  /**
   * Days after a note completes that its recording is deleted (audio retention, notes/recording/
   * audio-retention.ts); 0 = at the first retention run after completion; null = kept.
   */
  audioRetentionDays: integer('audio_retention_days'),
  /** IANA time zone of the clinic: the visit date of a note that names none is its creation day there. */
  timezone: text('timezone').notNull().default('America/Sao_Paulo'),
  /** The clinic's own drug names (brands, compounded products), added to the plan's lexicon for its notes. */
  drugNames: jsonb('drug_names').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  /**
   * The clinic as its printed record names it (the PDF prontuário's heading): `{name, address,
   * phone, crmv_registration}` as `PATCH /settings` validated it; null until an administrator sets it.
   */
  clinicProfile: jsonb('clinic_profile').$type<StoredClinicProfile | null>(),
  /**
   * The CRM workspace the clinic sends owner summaries through: one of its CRM keys, sealed like
   * webhook secrets (the clinic id as additional data), with what may be shown of it. Null = unlinked.
   */
  crmLink: jsonb('crm_link').$type<StoredCrmLink | null>(),
  /** The WhatsApp template owner summaries are sent in (`{name, language}`); null = free-form. */
  ownerSummaryTemplate: jsonb('owner_summary_template').$type<{ name: string; language: string } | null>(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The clinic's profile as stored (src/notes/settings/settings.schemas.ts ClinicProfile). */
export interface StoredClinicProfile {
  name: string;
  address: string | null;
  phone: string | null;
  crmv_registration: string | null;
}

export interface StoredCrmLink {
  /** The CRM token, sealed (notes/webhooks/secrets.ts SecretBox); never shown again. */
  sealed_token: string;
  key_id: string;
  key_prefix: string;
  workspace_id: string;
  workspace_name: string;
}
