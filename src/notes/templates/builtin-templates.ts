// The templates every clinic has: `padrao` (the six base sections, the default) and `soap`. They
// live in code, not in the database, with fixed ids (UUID v4, the same on every server), and can
// be neither changed nor deleted.

import type { StoredTemplate } from '../../platform/db/schema/index.ts';
import { BASE_SECTIONS } from '../../providers/drafting/port.ts';
import type { Template } from './template.ts';

export const PADRAO_TEMPLATE_ID = 'b3c2131a-232f-4ad2-a293-67d49750caba';
export const SOAP_TEMPLATE_ID = 'eea542f6-5ea1-4711-9fc8-f1119519c233';

export const PADRAO: Template = {
  id: PADRAO_TEMPLATE_ID,
  slug: 'padrao',
  name: 'Padrão',
  builtin: true,
  sections: BASE_SECTIONS.map((section) => ({ ...section, includes: [...section.includes] })),
};

export const SOAP: Template = {
  id: SOAP_TEMPLATE_ID,
  slug: 'soap',
  name: 'SOAP',
  builtin: true,
  sections: [
    { label: 'subjetivo', title: 'Subjetivo', includes: ['anamnesis'], instructions: null },
    { label: 'objetivo', title: 'Objetivo', includes: ['physical_exam'], instructions: null },
    { label: 'avaliacao', title: 'Avaliação', includes: ['diagnosis'], instructions: null },
    { label: 'plano', title: 'Plano', includes: ['treatment', 'follow_up', 'observations'], instructions: null },
  ],
};

/** Built-ins first, in this order, in every list. */
export const BUILTIN_TEMPLATES: readonly Template[] = [PADRAO, SOAP];

export const builtinBySlug = (slug: string) => BUILTIN_TEMPLATES.find((template) => template.slug === slug);
export const builtinById = (id: string) => BUILTIN_TEMPLATES.find((template) => template.id === id);

/** What a note keeps of the template it is made with. */
export function snapshotOf(template: Template): StoredTemplate {
  return { id: template.id, slug: template.slug, name: template.name, sections: template.sections };
}

/** The template a note is written in: the one it was made with, `padrao` for notes made before templates. */
export function templateOfNote(note: { template: StoredTemplate | null }): StoredTemplate {
  return note.template ?? snapshotOf(PADRAO);
}
