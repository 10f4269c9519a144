import type { Db } from '../../platform/db/client.ts';
import { and, asc, desc, eq, isNull, sql } from '../../platform/db/drizzle.ts';
import { chats, leads, pipelineStages } from '../../platform/db/schema/index.ts';

export type StageRow = typeof pipelineStages.$inferSelect;
export type LeadRow = typeof leads.$inferSelect;
export type ChatRow = typeof chats.$inferSelect;

export function listStages(workspaceId: string, tx: Db): Promise<StageRow[]> {
  return tx
    .select()
    .from(pipelineStages)
    .where(eq(pipelineStages.workspaceId, workspaceId))
    .orderBy(asc(pipelineStages.position), asc(pipelineStages.createdAt));
}

export async function findStage(workspaceId: string, id: string, tx: Db): Promise<StageRow | undefined> {
  const [row] = await tx
    .select()
    .from(pipelineStages)
    .where(and(eq(pipelineStages.id, id), eq(pipelineStages.workspaceId, workspaceId)));
  return row;
}

export async function insertStage(values: typeof pipelineStages.$inferInsert, tx: Db): Promise<StageRow> {
  const [row] = await tx.insert(pipelineStages).values(values).returning();
  return row!;
}

export async function insertLead(values: typeof leads.$inferInsert, tx: Db): Promise<LeadRow> {
  const [row] = await tx.insert(leads).values(values).returning();
  return row!;
}

export async function findLead(workspaceId: string, id: string, tx: Db): Promise<LeadRow | undefined> {
  const [row] = await tx
    .select()
    .from(leads)
    .where(and(eq(leads.id, id), eq(leads.workspaceId, workspaceId)));
  return row;
}

export async function updateLead(
  id: string,
  changes: Partial<Pick<LeadRow, 'stageId' | 'status' | 'finishedAt'>>,
  tx: Db,
): Promise<LeadRow> {
  const [row] = await tx
    .update(leads)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(leads.id, id))
    .returning();
  return row!;
}

export async function findActiveLead(contactId: string, tx: Db): Promise<LeadRow | undefined> {
  const [row] = await tx
    .select()
    .from(leads)
    .where(and(eq(leads.contactId, contactId), eq(leads.status, 'active')));
  return row;
}

/**
 * Claims the lead's one survey: moves it to the survey stage and stamps survey_sent_at, only if no
 * survey was sent yet. Of two concurrent triggers the second waits on the row lock, re-reads it and
 * matches nothing, so exactly one of them gets a row back.
 */
export async function claimSurvey(leadId: string, stageId: string, tx: Db): Promise<LeadRow | undefined> {
  const [row] = await tx
    .update(leads)
    .set({ stageId, surveySentAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(leads.id, leadId), eq(leads.status, 'active'), isNull(leads.surveySentAt)))
    .returning();
  return row;
}

export async function insertChat(values: typeof chats.$inferInsert, tx: Db): Promise<ChatRow> {
  const [row] = await tx.insert(chats).values(values).returning();
  return row!;
}

export async function latestChat(contactId: string, tx: Db): Promise<ChatRow | undefined> {
  const [row] = await tx.select().from(chats).where(eq(chats.contactId, contactId)).orderBy(desc(chats.createdAt)).limit(1);
  return row;
}
