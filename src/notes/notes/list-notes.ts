import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import type { SQL } from '../../platform/db/drizzle.ts';
import type { NotesCaller } from '../callers.ts';
import { NoteSchema, TranscriptionStatusSchema } from './note.schemas.ts';
import { countNotes, noteFilters, notePage } from './note-list.repo.ts';
import { toNoteBody } from './note-view.ts';

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
          'later pages still answer. Ask `count=exact` for the full count. A list whose filters counted beyond the limit ' +
          'is not counted again for a few seconds (NOTES_LIST_COUNT_CACHE_SECONDS, default 5): it keeps answering the lower bound. ' +
          'A total up to the limit is always counted afresh.',
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

export type ListNotesQuery = z.infer<typeof ListNotesQuery>;
type Query = ListNotesQuery;

/**
 * Which (clinic, filters) counted beyond the count limit in the last `ttlMs`: paging through a
 * large match (or several clients asking the same list) does not count the same 10,001 rows again.
 * Only that verdict is kept — a total up to the limit is counted every time, so it stays exact and
 * fresh; the verdict goes stale only if thousands of matches vanish within `ttlMs`
 * (docs/notes-reads.md). Bounded: the oldest entries go first beyond `maxEntries`.
 */
export function beyondLimitCache(ttlMs: number, maxEntries = 1_000) {
  const expiries = new Map<string, number>();
  return {
    has(key: string): boolean {
      const expiry = expiries.get(key);
      if (expiry === undefined) return false;
      if (expiry > Date.now()) return true;
      expiries.delete(key);
      return false;
    },
    add(key: string): void {
      if (ttlMs <= 0) return;
      expiries.delete(key);
      expiries.set(key, Date.now() + ttlMs);
      if (expiries.size > maxEntries) expiries.delete(expiries.keys().next().value!);
    },
  };
}
export type BeyondLimitCache = ReturnType<typeof beyondLimitCache>;

/**
 * One page, newest first, and the total (`exact: false` when it is a lower bound). The page comes first: when it is the last one (not full)
 * the total follows from it and nothing is counted. Otherwise the count stops at `countLimit` + 1
 * rows unless `count=exact`: an exact count(*) over a large match (a common name in a clinic with a
 * million notes) costs hundreds of milliseconds, the page itself under one (docs/notes-reads.md).
 * A filter that counted beyond the limit moments ago is not counted again (`beyondLimit`).
 */
export async function listNotes(
  caller: NotesCaller,
  query: Query,
  { db, publicBaseUrl, countLimit, beyondLimit }: { db: Db; publicBaseUrl: string; countLimit: number; beyondLimit: BeyondLimitCache },
) {
  const where = noteFilters(caller.clinicId, query);
  const offset = (query.page - 1) * query.limit;
  const rows = await notePage(where, { limit: query.limit, offset }, db);
  const { total, exact } = await totalOf(
    where,
    rows.length < query.limit && (rows.length > 0 || offset === 0),
    {
      seen: offset + rows.length,
      countLimit: query.count === 'exact' ? undefined : countLimit,
      beyondLimit,
      key: filterKey(caller.clinicId, query),
    },
    db,
  );
  return { items: rows.map((row) => toNoteBody(row, publicBaseUrl)), total, exact };
}

/** The clinic and the filters: what the count depends on (not the page, the limit or `count`). */
function filterKey(clinicId: string, { transcription_status, name, from, to, days, external_id }: Query): string {
  return JSON.stringify([clinicId, transcription_status, name, from, to, days, external_id]);
}

async function totalOf(
  where: SQL,
  lastPage: boolean,
  { seen, countLimit, beyondLimit, key }: { seen: number; countLimit: number | undefined; beyondLimit: BeyondLimitCache; key: string },
  db: Db,
): Promise<{ total: number; exact: boolean }> {
  if (lastPage) return { total: seen, exact: true };
  // At least this many; more pages than that still answer.
  const lowerBound = (limit: number) => ({ total: Math.max(limit, seen), exact: false });
  if (countLimit !== undefined && beyondLimit.has(key)) return lowerBound(countLimit);
  const counted = await countNotes(where, countLimit, db);
  if (countLimit === undefined || counted <= countLimit) return { total: counted, exact: true };
  beyondLimit.add(key);
  return lowerBound(countLimit);
}
