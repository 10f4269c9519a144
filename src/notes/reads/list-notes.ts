import { z } from 'zod';
import type { Db } from '../../platform/db/client.ts';
import type { NotesCaller } from '../callers.ts';
import { NoteSchema, TranscriptionStatusSchema } from '../store/note.schemas.ts';
import { toNoteBody } from '../store/note-view.ts';
import type { NoteSummaryRow } from '../store/notes.repo.ts';
import type { ListCountCache } from './list-count-cache.ts';
import { countHour, countMatchingNotes, type NoteFilters, noteFilters, notePage } from './note-list.repo.ts';

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

const ListItem = NoteSchema.omit({ note_sections: true, review_flags: true, signature: true, audio: true, visit_date: true, plan: true });

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
          'later pages still answer. Ask `count=exact` for the full count. Either way the total is current: it reflects every ' +
          "change to the clinic's notes committed before the request.",
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
 * One page, newest first, and the total (`exact: false` when it is a lower bound). When the page is
 * the last one (not full) the total follows from it and nothing is counted. Otherwise the count
 * stops at `countLimit` + 1 rows unless `count=exact`: an exact count(*) over a large match (a
 * common name in a clinic with a million notes) costs hundreds of milliseconds, the page itself
 * under one (docs/notes-reads.md). A count is reused while the clinic's notes have not changed
 * (`counts`, list-count-cache.ts); for `days`, whose matches change with the clock alone, the part
 * that does not (countMatching).
 */
export async function listNotes(caller: NotesCaller, query: Query, { db, publicBaseUrl, countLimit, counts, listVersion }: ListDeps) {
  const filters = listFilters(query);
  const offset = (query.page - 1) * query.limit;
  // The version is read before anything is counted (alongside the page, so at no extra wait): a
  // count is then never older than the version it is stored under.
  const [rows, version] = await Promise.all([
    notePage(caller.clinicId, filters, { limit: query.limit, offset }, db),
    listVersion(caller.clinicId),
  ]);
  const seen = offset + rows.length;
  if (rows.length < query.limit && (rows.length > 0 || offset === 0)) return listed(rows, seen, true, publicBaseUrl);
  const upTo = query.count === 'exact' ? undefined : countLimit;
  const counted = await countMatching(caller.clinicId, query, filters, upTo, version, { db, counts });
  if (upTo === undefined || counted <= upTo) return listed(rows, counted, true, publicBaseUrl);
  // At least this many; more pages than that still answer.
  return listed(rows, Math.max(upTo, seen), false, publicBaseUrl);
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The query's filters, `days` fixed as one instant: the same for the page and the count. */
export function listFilters({ days, ...rest }: Omit<NoteFilters, 'since' | 'before'> & { days?: number }): NoteFilters {
  return { ...rest, since: days === undefined ? undefined : new Date(Date.now() - days * DAY_MS) };
}

/**
 * How many notes match (at most `upTo` + 1 when given), the count reused while the clinic's notes are at `version`.
 *
 * `days` matches change as the clock moves, with no write: its cutoff is counted from the hour it
 * falls in (`anchor`), fixed for the hour and so reused like any count, less the matching notes
 * between the anchor and the cutoff (at most an hour of the clinic's notes, counted every time).
 * Capped, the count from the anchor goes as far as `upTo` + 1 + the matches of that hour, so that
 * after the subtraction it still tells "more than `upTo`".
 */
async function countMatching(
  clinicId: string,
  query: Query,
  filters: NoteFilters,
  upTo: number | undefined,
  version: number,
  { db, counts }: Pick<ListDeps, 'db' | 'counts'>,
): Promise<number> {
  const key = [clinicId, query.transcription_status, query.name, query.from, query.to, query.external_id, upTo ?? 'exact'];
  if (filters.since === undefined) {
    return counts.counted(JSON.stringify(key), version, () => countMatchingNotes(clinicId, filters, upTo, db));
  }
  const cutoff = filters.since;
  const anchor = new Date(Math.floor(cutoff.getTime() / HOUR_MS) * HOUR_MS);
  const hour = await countHour(
    noteFilters(clinicId, { ...filters, since: anchor, before: new Date(anchor.getTime() + HOUR_MS) }),
    cutoff,
    db,
  );
  const cap = upTo === undefined ? undefined : upTo + hour.hour;
  const fromAnchor = await counts.counted(JSON.stringify([...key, 'since', anchor.toISOString(), cap ?? 'exact']), version, () =>
    countMatchingNotes(clinicId, { ...filters, since: anchor }, cap, db),
  );
  return fromAnchor - hour.beforeCutoff;
}

interface ListDeps {
  db: Db;
  publicBaseUrl: string;
  countLimit: number;
  counts: ListCountCache;
  /** The clinic's notes-list version (prepareNoteListVersion). */
  listVersion: (clinicId: string) => Promise<number>;
}

function listed(rows: NoteSummaryRow[], total: number, exact: boolean, publicBaseUrl: string) {
  return { items: rows.map((row) => toNoteBody(row, publicBaseUrl)), total, exact };
}
