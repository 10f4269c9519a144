import type { Db } from '../../platform/db/client.ts';
import type { StoredTemplate } from '../../platform/db/schema/index.ts';
import { AppError } from '../../platform/errors.ts';
import { findSettings } from '../store/settings.repo.ts';
import { PADRAO, snapshotOf } from './builtin-templates.ts';
import { findTemplateBySlug } from './find-template.ts';

/**
 * The template a new note (upload or live) is written in, as the note keeps it: the one `slug`
 * names, else the clinic's default. An unknown slug → 422 `TEMPLATE_NOT_FOUND` naming `field`. A
 * default whose template no longer exists falls back to `padrao` (deleting a template resets the
 * default that named it; this only guards the gap).
 */
export async function resolveNoteTemplate(
  clinicId: string,
  slug: string | null | undefined,
  tx: Db,
  field = 'metadata.template',
): Promise<StoredTemplate> {
  if (slug !== undefined && slug !== null) {
    const chosen = await findTemplateBySlug(clinicId, slug, tx);
    if (!chosen) throw new AppError('TEMPLATE_NOT_FOUND', `No template "${slug}" in this clinic`, { field, template: slug });
    return snapshotOf(chosen);
  }
  const settings = await findSettings(clinicId, tx);
  const byDefault = settings ? await findTemplateBySlug(clinicId, settings.defaultTemplate, tx) : undefined;
  return snapshotOf(byDefault ?? PADRAO);
}
