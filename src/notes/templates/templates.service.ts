import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { uniqueViolation } from '../../platform/db/unique-violation.ts';
import { AppError } from '../../platform/errors.ts';
import { pageOf } from '../../platform/http/pagination.ts';
import type { NotesCaller } from '../callers.ts';
import { refuseAtLimit } from '../store/clinic-limits.ts';
import { lockClinic } from '../store/notes.repo.ts';
import { BUILTIN_TEMPLATES, builtinById, builtinBySlug, PADRAO } from './builtin-templates.ts';
import { fromRow } from './find-template.ts';
import type { Template } from './template.ts';
import { checkCoverage } from './template-coverage.ts';
import {
  countClinicTemplates,
  deleteTemplate,
  findTemplateRow,
  insertTemplate,
  listClinicTemplates,
  replaceDefaultTemplate,
  type TemplateRow,
  updateTemplate,
} from './templates.repo.ts';
import {
  type CreateTemplateInput,
  TEMPLATE_LIMIT,
  TEMPLATE_LIST_LIMIT,
  type TemplateSectionsInput,
  type UpdateTemplateInput,
} from './templates.schemas.ts';

export interface TemplatesDeps {
  db: Db;
}

/** The API's Template (snake_case is the same as the domain's here). */
export type TemplateBody = Template;

/** The clinic's own template `id`: 404 when there is none, 403 when it is another clinic's. */
function ownTemplate(caller: NotesCaller, row: TemplateRow | undefined): TemplateRow {
  if (!row) throw new AppError('TEMPLATE_ID_NOT_FOUND', 'Template not found');
  if (row.clinicId !== caller.clinicId) throw new AppError('FORBIDDEN_TENANT', 'This template belongs to another clinic');
  return row;
}

function refuseBuiltin(id: string): void {
  const builtin = builtinById(id);
  if (builtin)
    throw new AppError('TEMPLATE_BUILTIN', `The built-in template "${builtin.slug}" cannot be changed or deleted`, { slug: builtin.slug });
}

/** Sections as stored: every base label in exactly one (422 otherwise), no instructions as null. */
function checkedSections(sections: TemplateSectionsInput): Template['sections'] {
  checkCoverage(sections);
  return sections.map((section) => ({
    label: section.label,
    title: section.title,
    includes: section.includes,
    instructions: section.instructions ? section.instructions : null,
  }));
}

function slugTaken(slug: string): AppError {
  return new AppError('TEMPLATE_EXISTS', `The clinic already has a template "${slug}"`, { field: 'slug', slug });
}

/** A page of the built-ins then the clinic's own (oldest first), and how many there are in all. */
async function listTemplates(
  deps: TemplatesDeps,
  caller: NotesCaller,
  query: { page?: number; limit?: number },
): Promise<{ templates: TemplateBody[]; total: number }> {
  const { limit, offset } = pageOf(query, TEMPLATE_LIST_LIMIT);
  const builtins = BUILTIN_TEMPLATES.slice(offset, offset + limit);
  const ownPage = { offset: Math.max(0, offset - BUILTIN_TEMPLATES.length), limit: limit - builtins.length };
  const [own, ownTotal] = await Promise.all([
    listClinicTemplates(caller.clinicId, ownPage, deps.db),
    countClinicTemplates(caller.clinicId, deps.db),
  ]);
  return { templates: [...builtins, ...own.map(fromRow)], total: BUILTIN_TEMPLATES.length + ownTotal };
}

async function getTemplate(deps: TemplatesDeps, caller: NotesCaller, id: string): Promise<TemplateBody> {
  return builtinById(id) ?? fromRow(ownTemplate(caller, await findTemplateRow(id, deps.db)));
}

/** At most TEMPLATE_LIMIT per clinic: counted under the clinic's lock, so two at once cannot both pass. */
async function createTemplate(deps: TemplatesDeps, caller: NotesCaller, input: CreateTemplateInput): Promise<TemplateBody> {
  if (builtinBySlug(input.slug)) throw slugTaken(input.slug);
  const sections = checkedSections(input.sections);
  try {
    return await deps.db.transaction(async (tx) => {
      await lockClinic(caller.clinicId, tx);
      refuseAtLimit(
        await countClinicTemplates(caller.clinicId, tx),
        TEMPLATE_LIMIT,
        'templates',
        `A clinic may have at most ${TEMPLATE_LIMIT} templates of its own: delete one first`,
      );
      return fromRow(await insertTemplate({ clinicId: caller.clinicId, slug: input.slug, name: input.name, sections }, tx));
    });
  } catch (error) {
    if (uniqueViolation(error) === 'note_templates_clinic_slug_key') throw slugTaken(input.slug);
    throw error;
  }
}

/** Name and sections only; notes already made keep the template they were made with. */
async function changeTemplate(deps: TemplatesDeps, caller: NotesCaller, id: string, patch: UpdateTemplateInput): Promise<TemplateBody> {
  refuseBuiltin(id);
  const current = ownTemplate(caller, await findTemplateRow(id, deps.db));
  const values: Parameters<typeof updateTemplate>[2] = {};
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.sections !== undefined) values.sections = checkedSections(patch.sections);
  if (Object.keys(values).length === 0) return fromRow(current);
  return fromRow(ownTemplate(caller, await updateTemplate(id, caller.clinicId, values, deps.db)));
}

/** Deleted for good; a clinic whose default it was goes back to `padrao`. Notes made with it keep it. */
async function removeTemplate(deps: TemplatesDeps, caller: NotesCaller, id: string): Promise<void> {
  refuseBuiltin(id);
  ownTemplate(caller, await findTemplateRow(id, deps.db));
  await deps.db.transaction(async (tx) => {
    // After any settings change in flight: one that names this template commits first and is reset
    // below, or runs after and finds the template gone.
    await lockClinic(caller.clinicId, tx);
    const removed = ownTemplate(caller, await deleteTemplate(id, caller.clinicId, tx));
    await replaceDefaultTemplate(caller.clinicId, removed.slug, PADRAO.slug, tx);
  });
}

export function templatesService(deps: TemplatesDeps) {
  return bindService(deps, {
    list: listTemplates,
    get: getTemplate,
    create: createTemplate,
    update: changeTemplate,
    remove: removeTemplate,
  });
}

export type TemplatesService = ReturnType<typeof templatesService>;
