import type { Db } from '../../platform/db/client.ts';
import { and, asc, count, eq, sql } from '../../platform/db/drizzle.ts';
import { clinicSettings, noteTemplates } from '../../platform/db/schema/index.ts';

export type TemplateRow = typeof noteTemplates.$inferSelect;
export type NewTemplateRow = typeof noteTemplates.$inferInsert;

/** A page of the clinic's own templates, oldest first. */
export async function listClinicTemplates(clinicId: string, page: { limit: number; offset: number }, db: Db): Promise<TemplateRow[]> {
  if (page.limit <= 0) return [];
  return db
    .select()
    .from(noteTemplates)
    .where(eq(noteTemplates.clinicId, clinicId))
    .orderBy(asc(noteTemplates.createdAt), asc(noteTemplates.slug))
    .limit(page.limit)
    .offset(page.offset);
}

export async function countClinicTemplates(clinicId: string, db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(noteTemplates).where(eq(noteTemplates.clinicId, clinicId));
  return Number(row?.n ?? 0);
}

export async function findTemplateRow(id: string, db: Db): Promise<TemplateRow | undefined> {
  const [row] = await db.select().from(noteTemplates).where(eq(noteTemplates.id, id));
  return row;
}

export async function findTemplateRowBySlug(clinicId: string, slug: string, db: Db): Promise<TemplateRow | undefined> {
  const [row] = await db
    .select()
    .from(noteTemplates)
    .where(and(eq(noteTemplates.clinicId, clinicId), eq(noteTemplates.slug, slug)));
  return row;
}

/** Throws the unique violation `note_templates_clinic_slug_key` when the clinic has the slug. */
export async function insertTemplate(template: NewTemplateRow, tx: Db): Promise<TemplateRow> {
  const [row] = await tx.insert(noteTemplates).values(template).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function updateTemplate(
  id: string,
  clinicId: string,
  values: Partial<Pick<TemplateRow, 'name' | 'sections'>>,
  tx: Db,
): Promise<TemplateRow | undefined> {
  const [row] = await tx
    .update(noteTemplates)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(noteTemplates.id, id), eq(noteTemplates.clinicId, clinicId)))
    .returning();
  return row;
}

export async function deleteTemplate(id: string, clinicId: string, tx: Db): Promise<TemplateRow | undefined> {
  const [row] = await tx
    .delete(noteTemplates)
    .where(and(eq(noteTemplates.id, id), eq(noteTemplates.clinicId, clinicId)))
    .returning();
  return row;
}

/** A clinic whose default was `slug` goes back to `fallback` (the template was deleted). */
export async function replaceDefaultTemplate(clinicId: string, slug: string, fallback: string, tx: Db): Promise<void> {
  await tx
    .update(clinicSettings)
    .set({ defaultTemplate: fallback, updatedAt: sql`now()` })
    .where(and(eq(clinicSettings.clinicId, clinicId), eq(clinicSettings.defaultTemplate, slug)));
}
