import { and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import { notes } from '../../platform/db/schema/index.ts';
import type { NotesCaller } from '../auth/key-authenticator.ts';
import { NoteSchema, TranscriptionStatusSchema } from './note.schemas.ts';
import { toNoteBody } from './note-view.ts';
import { noteColumnsWithoutTranscript } from './notes.repo.ts';

export const ListNotesQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  transcription_status: TranscriptionStatusSchema.optional(),
  name: z.string().trim().min(1).max(100).optional().meta({ description: 'Partial, case- and accent-insensitive ("joao" finds "João")' }),
  from: z.iso.date().optional().meta({ description: 'First day (UTC), inclusive' }),
  to: z.iso.date().optional().meta({ description: 'Last day (UTC), inclusive' }),
  days: z.coerce.number().int().min(1).max(3650).optional().meta({ description: 'Created within the last N days' }),
  external_id: z.string().min(1).max(100).optional().meta({ description: 'Exact match' }),
  count: z
    .literal('exact')
    .optional()
    .meta({
      description:
        'Count every matching note even beyond NOTES_LIST_COUNT_LIMIT (default 10,000). Slower on large result sets; ' +
        'without it a larger total is reported as that limit with `total_exact: false`.',
    }),
});

const ListItem = NoteSchema.omit({ note_sections: true, review_flags: true });

export const NoteListEnvelope = z
  .object({
    status: z.literal('success'),
    data: z.array(ListItem),
    meta: z.object({
      total: z.int(),
      page: z.int(),
      limit: z.int(),
      total_pages: z.int(),
      total_exact: z.boolean().meta({
        description:
          'False when more notes match than the count limit (10,000 by default): `total` is then a lower bound; ' +
          'later pages still answer. Ask `count=exact` for the full count.',
      }),
    }),
    notes: z.array(ListItem).meta({ description: 'The same items, in the NoteListResponse shape' }),
    pagination: z.object({
      current_page: z.int(),
      total_pages: z.int(),
      total_items: z.int(),
      total_items_exact: z.boolean().meta({ description: 'As `meta.total_exact`' }),
    }),
  })
  .meta({ id: 'NoteListResponse', description: 'Both documented list shapes over the same items, newest first.' });

type Query = z.infer<typeof ListNotesQuery>;

function filtersOf(clinicId: string, query: Query): SQL {
  const conditions: SQL[] = [eq(notes.clinicId, clinicId)];
  if (query.transcription_status) conditions.push(eq(notes.transcriptionStatus, query.transcription_status));
  if (query.external_id) conditions.push(eq(notes.externalId, query.external_id));
  if (query.name) {
    // LIKE wildcards in the search text are literal characters, not patterns.
    const escaped = query.name.replace(/[\\%_]/g, (char) => `\\${char}`);
    conditions.push(sql`vetflow_fold(${notes.name}) like '%' || vetflow_fold(${escaped}) || '%'`);
  }
  if (query.from) conditions.push(gte(notes.createdAt, new Date(`${query.from}T00:00:00Z`)));
  if (query.to) conditions.push(lt(notes.createdAt, new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000)));
  if (query.days) conditions.push(gte(notes.createdAt, new Date(Date.now() - query.days * 86_400_000)));
  return and(...conditions) as SQL;
}

/**
 * One page, newest first, and the total. The page comes first: when it is the last one (not full)
 * the total follows from it and nothing is counted. Otherwise the count stops at `countLimit` + 1
 * rows unless `count=exact`: an exact count(*) over a large match (a common name in a clinic with a
 * million notes) costs hundreds of milliseconds, the page itself under one (docs/notes-reads.md).
 */
export async function listNotes(db: Db, caller: NotesCaller, query: Query, publicBaseUrl: string, countLimit: number) {
  const where = filtersOf(caller.clinicId, query);
  const offset = (query.page - 1) * query.limit;
  const rows = await db
    .select(noteColumnsWithoutTranscript)
    .from(notes)
    .where(where)
    // NULLS LAST, as notes_clinic_created_idx is built: plain DESC means NULLS FIRST, which that
    // index cannot return in order, so every page sorted all the matching rows (both columns are NOT NULL).
    .orderBy(sql`${notes.createdAt} desc nulls last`, sql`${notes.id} desc nulls last`)
    .limit(query.limit)
    .offset(offset);
  const { total, exact } = await totalOf(db, where, rows.length < query.limit && (rows.length > 0 || offset === 0), {
    seen: offset + rows.length,
    countLimit: query.count === 'exact' ? undefined : countLimit,
  });
  const totalPages = Math.ceil(total / query.limit);
  const items = rows.map((row) => toNoteBody(row, publicBaseUrl));
  return {
    status: 'success' as const,
    data: items,
    meta: { total, page: query.page, limit: query.limit, total_pages: totalPages, total_exact: exact },
    notes: items,
    pagination: { current_page: query.page, total_pages: totalPages, total_items: total, total_items_exact: exact },
  };
}

async function totalOf(
  db: Db,
  where: SQL,
  lastPage: boolean,
  { seen, countLimit }: { seen: number; countLimit: number | undefined },
): Promise<{ total: number; exact: boolean }> {
  if (lastPage) return { total: seen, exact: true };
  if (countLimit === undefined) {
    const [row] = await db.select({ total: count() }).from(notes).where(where);
    return { total: Number(row?.total ?? 0), exact: true };
  }
  const matching = db
    .select({ one: sql`1`.as('one') })
    .from(notes)
    .where(where)
    .limit(countLimit + 1)
    .as('matching');
  const [row] = await db.select({ total: count() }).from(matching);
  const counted = Number(row?.total ?? 0);
  if (counted <= countLimit) return { total: counted, exact: true };
  // At least this many; more pages than that still answer.
  return { total: Math.max(countLimit, seen), exact: false };
}
