import type { Db } from '../../platform/db/client.ts';
import { and, count, eq, inArray, lt, type SQL, sql } from '../../platform/db/drizzle.ts';
import { escapeLike } from '../../platform/db/like.ts';
import { noteListVersions, notes } from '../../platform/db/schema/index.ts';
import { type NoteSummaryRow, noteColumnsWithoutTranscript } from '../store/notes.repo.ts';
import { contentPage, countContent } from './content-search.repo.ts';
import { countNameWords, dateConditions, nameWalk, nameWordsPage } from './name-words.repo.ts';
import type { NoteFilters } from './note-filters.ts';

export type { NoteFilters } from './note-filters.ts';

/** The notes of one clinic that pass every filter given. */
export function noteFilters(clinicId: string, filters: NoteFilters): SQL {
  const conditions = scopeConditions(clinicId, filters);
  if (filters.name) conditions.push(nameMatches(filters.name));
  return and(...conditions) as SQL;
}

/** The filters a search document does not carry (it has the clinic and the dates): none → undefined. */
function notesOnlyFilters(clinicId: string, filters: NoteFilters): SQL | undefined {
  if (!filters.transcription_status && !filters.external_id && !filters.name) return undefined;
  return noteFilters(clinicId, { ...filters, from: undefined, to: undefined, since: undefined, before: undefined });
}

/** Every filter but the name: what bounds the walk of notes_clinic_created_idx. */
function scopeConditions(clinicId: string, filters: NoteFilters): SQL[] {
  const conditions: SQL[] = [eq(notes.clinicId, clinicId)];
  if (filters.transcription_status) conditions.push(eq(notes.transcriptionStatus, filters.transcription_status));
  if (filters.external_id) conditions.push(eq(notes.externalId, filters.external_id));
  conditions.push(...dateConditions(notes.createdAt, filters));
  return conditions;
}

/** Partial, case- and accent-insensitive: the stored fold (notes.name_folded) against the folded text. */
function nameMatches(name: string): SQL {
  return sql`${notes.nameFolded} like '%' || vetflow_fold(${escapeLike(name)}) || '%'`;
}

// Newest first. NULLS LAST, as notes_clinic_created_idx is built: plain DESC means NULLS FIRST, which
// that index cannot return in order, so every page would sort all the matching rows (both columns are NOT NULL).
const newestFirst = sql`${notes.createdAt} desc nulls last, ${notes.id} desc nulls last`;

/** Index entries a name search walks first, and at most on its second walk (see notePage). */
export const NAME_WALK = { first: 2_000, most: 20_000 };

/**
 * One page of matching notes (without transcripts), newest first.
 *
 * Without a name, one walk of an index in the list's order (notes_clinic_created_idx, or
 * notes_clinic_external_idx for an external id, whose few notes are then sorted); past the first
 * page, the walk reads the index alone and the page's notes are then read by id.
 *
 * With a name, no plan is left to the planner's guess of how many notes a name matches (it guessed
 * a few for `maria silva` and sorted thousands). The page comes from walking notes_clinic_created_idx
 * newest first (an index-only scan: the folded name and the status are in it), checking the name on
 * each entry, for at most NAME_WALK.first entries; when those hold fewer matches than the page
 * needs, from what they held the walk goes on for up to NAME_WALK.most more entries if that
 * should be enough, and otherwise — a name that few notes match — the rest comes from the trigram
 * index (notes_name_folded_trgm_idx), the notes older than the walk sorted, few by then. Either way
 * the same notes in the same order as one `order by created_at desc, id desc`.
 */
export async function notePage(
  clinicId: string,
  filters: NoteFilters,
  page: { limit: number; offset: number },
  db: Db,
): Promise<NoteSummaryRow[]> {
  if (filters.content) {
    // A content search: its own index finds the candidates (content-search.repo.ts); every other filter is checked on them.
    const { content, ...rest } = filters;
    return byIds(await contentPage(clinicId, content, rest, notesOnlyFilters(clinicId, rest), page, db), db);
  }
  if (!filters.name) {
    const where = noteFilters(clinicId, filters);
    if (page.offset === 0 || filters.external_id) {
      return db.select(noteColumnsWithoutTranscript).from(notes).where(where).orderBy(newestFirst).limit(page.limit).offset(page.offset);
    }
    // A later page: the notes skipped are skipped in the index alone (an index-only scan), not read.
    const skipped = await db.select({ id: notes.id }).from(notes).where(where).orderBy(newestFirst).limit(page.limit).offset(page.offset);
    return byIds(
      skipped.map((row) => row.id),
      db,
    );
  }
  if (!filters.external_id) {
    const named = { ...filters, name: filters.name };
    const walk = await nameWalk(clinicId, named, db);
    if (walk === 'none') return [];
    if (walk) {
      const found = await nameWordsPage(clinicId, named, walk, page, db);
      return byIds(
        found.map((place) => place.id),
        db,
      );
    }
  }
  const scope = scopeConditions(clinicId, filters);
  const name = nameMatches(filters.name);
  const needed = page.offset + page.limit;
  const found: Place[] = [];
  let walk = await walkMatching(scope, name, { entries: NAME_WALK.first, needed, after: undefined }, db);
  found.push(...walk.matches);
  if (found.length < needed && walk.last) {
    // Entries expected to hold the rest at the density seen so far, taken low (k − √k matches for
    // the k found: two in 2,000 entries may well be luck), as a second walk that falls short costs
    // about what the trigram index after it does.
    const low = found.length - Math.sqrt(found.length);
    const expected = low <= 0 ? Infinity : ((needed - found.length) * NAME_WALK.first) / low;
    if (expected <= NAME_WALK.most) {
      walk = await walkMatching(scope, name, { entries: NAME_WALK.most, needed: needed - found.length, after: walk.last }, db);
      found.push(...walk.matches);
    }
    if (found.length < needed && walk.last)
      found.push(...(await olderMatching(scope, name, { needed: needed - found.length, after: walk.last }, db)));
  }
  return byIds(
    found.slice(page.offset, needed).map((place) => place.id),
    db,
  );
}

/** The notes of a page found by id, newest first. */
async function byIds(ids: string[], db: Db): Promise<NoteSummaryRow[]> {
  if (ids.length === 0) return [];
  return db.select(noteColumnsWithoutTranscript).from(notes).where(inArray(notes.id, ids)).orderBy(newestFirst);
}

/** A note's place in the list's order; `createdAt` as Postgres prints it, to the microsecond. */
interface Place {
  id: string;
  createdAt: string;
}

/** Notes strictly after `place` in the list's order (older, or as old with a smaller id). */
const after = (place: Place) => sql`(${notes.createdAt}, ${notes.id}) < (${place.createdAt}::timestamptz, ${place.id}::uuid)`;

/**
 * Walks at most `entries` notes in scope after `after`, newest first, and returns the first `needed`
 * that match the name, and `last` (the last note walked) when the walk stopped at `entries`
 * without finding them all. row_number() counts the entries as the walk reads them (the window
 * streams: the walk still stops as soon as `needed` matches are found).
 */
async function walkMatching(
  scope: SQL[],
  name: SQL,
  walk: { entries: number; needed: number; after: Place | undefined },
  db: Db,
): Promise<{ matches: Place[]; last: Place | undefined }> {
  const where = and(...scope, ...(walk.after ? [after(walk.after)] : []));
  const result = (await db.execute(sql`
    select id, created_at, hit, n from (
      select ${notes.id} as id, ${notes.createdAt}::text as created_at, ${name} as hit,
             row_number() over (order by ${newestFirst}) as n
      from ${notes} where ${where}
      order by ${newestFirst}
      limit ${walk.entries}
    ) walked
    where hit or n = ${walk.entries}
    limit ${walk.needed + 1}`)) as unknown as { rows: { id: string; created_at: string; hit: boolean; n: string | number }[] };
  const matches = result.rows.filter((row) => row.hit).map((row) => ({ id: row.id, createdAt: row.created_at }));
  const end = result.rows.find((row) => Number(row.n) === walk.entries);
  return {
    matches: matches.slice(0, walk.needed),
    last: matches.length < walk.needed && end ? { id: end.id, createdAt: end.created_at } : undefined,
  };
}

/**
 * The first `needed` notes in scope after `after` that match the name, through the trigram index:
 * the walk before has shown the name to be rare, so its candidates are few. MATERIALIZED keeps the
 * planner from walking the date index again for the ORDER BY ... LIMIT.
 */
async function olderMatching(scope: SQL[], name: SQL, rest: { needed: number; after: Place }, db: Db): Promise<Place[]> {
  const result = (await db.execute(sql`
    with matching as materialized (
      select ${notes.id} as id, ${notes.createdAt} as created_at from ${notes} where ${and(...scope, name, after(rest.after))}
    )
    select matching.id, matching.created_at::text as created_at from matching
    order by matching.created_at desc nulls last, matching.id desc nulls last
    limit ${rest.needed}`)) as unknown as { rows: { id: string; created_at: string }[] };
  return result.rows.map((row) => ({ id: row.id, createdAt: row.created_at }));
}

/**
 * How many notes of the clinic pass `filters`, counting no further than `upTo` when given (then at
 * most `upTo` + 1): a name through its words when that walks one word's notes (name-words.repo.ts).
 */
export async function countMatchingNotes(clinicId: string, filters: NoteFilters, upTo: number | undefined, db: Db): Promise<number> {
  if (filters.content) {
    const { content, ...rest } = filters;
    return countContent(clinicId, content, rest, notesOnlyFilters(clinicId, rest), upTo, db);
  }
  if (filters.name && !filters.external_id) {
    const named = { ...filters, name: filters.name };
    const walk = await nameWalk(clinicId, named, db);
    if (walk === 'none') return 0;
    if (walk) {
      const counted = await countNameWords(clinicId, named, walk, upTo, db);
      if (counted !== undefined) return counted;
    }
  }
  return countNotes(noteFilters(clinicId, filters), upTo, db);
}

/** How many notes match, counting no further than `upTo` when given (then at most `upTo` + 1). */
export async function countNotes(where: SQL, upTo: number | undefined, db: Db): Promise<number> {
  if (upTo === undefined) {
    const [row] = await db.select({ total: count() }).from(notes).where(where);
    return Number(row?.total ?? 0);
  }
  const matching = db
    .select({ one: sql`1`.as('one') })
    .from(notes)
    .where(where)
    .limit(upTo + 1)
    .as('matching');
  const [row] = await db.select({ total: count() }).from(matching);
  return Number(row?.total ?? 0);
}

/**
 * Of the notes that match `where` (which bounds them to one past hour), how many there are and how
 * many were created before `cutoff`: one range of the list's index, an hour of the clinic's notes.
 */
export async function countHour(where: SQL, cutoff: Date, db: Db): Promise<{ hour: number; beforeCutoff: number }> {
  const [row] = await db
    .select({ hour: count(), beforeCutoff: sql<number>`count(*) filter (where ${lt(notes.createdAt, cutoff)})`.mapWith(Number) })
    .from(notes)
    .where(where);
  return { hour: Number(row?.hour ?? 0), beforeCutoff: Number(row?.beforeCutoff ?? 0) };
}

/**
 * The clinic's notes-list version (note_list_versions, kept by note-list-version.sql's triggers):
 * 0 while none of its notes has changed since those triggers exist. One primary-key lookup, prepared once.
 */
export function prepareNoteListVersion(db: Db) {
  const statement = db
    .select({ version: noteListVersions.version })
    .from(noteListVersions)
    .where(eq(noteListVersions.clinicId, sql.placeholder('clinicId')))
    .prepare('note_list_version');
  return async (clinicId: string): Promise<number> => (await statement.execute({ clinicId }))[0]?.version ?? 0;
}
