import type { Db } from '../../platform/db/client.ts';
import type { SectionLabel } from '../../providers/sectioning/port.ts';
import { builtinBySlug } from './builtin-templates.ts';
import type { Template } from './template.ts';
import { findTemplateRowBySlug, type TemplateRow } from './templates.repo.ts';

/** A clinic's own template as the service shows it. */
export function fromRow(row: TemplateRow): Template {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    builtin: false,
    sections: row.sections.map((section) => ({ ...section, includes: section.includes as SectionLabel[] })),
  };
}

/** The template `slug` names for the clinic: a built-in or one of its own; undefined when none. */
export async function findTemplateBySlug(clinicId: string, slug: string, db: Db): Promise<Template | undefined> {
  const builtin = builtinBySlug(slug);
  if (builtin) return builtin;
  const row = await findTemplateRowBySlug(clinicId, slug, db);
  return row ? fromRow(row) : undefined;
}
