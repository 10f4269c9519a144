import type { Db } from '../../platform/db/client.ts';
import { and, eq, gte, lt, type SQL, sql } from '../../platform/db/drizzle.ts';
import { escapeLike } from '../../platform/db/like.ts';
import { noteNameDictionary, noteNameWords, type noteSearchDocuments, type notes } from '../../platform/db/schema/index.ts';
import type { NoteFilters } from './note-filters.ts';

/**
 * A name search through the words of the clinic's note names (note_name_words, kept by
 * name-words.sql; docs/notes-reads.md). The folded search is split on spaces like the names
 * are; each of its words can only be part of certain words of a matching name: the first a word's
 * end, the last a word's start, any between a whole word, and a search of one word any part of a
 * word. The clinic's dictionary turns each into the words it can be (`silva` → `silva`, `ao` →
 * `joao`, `galvao`, ...). Every matching note holds one of the words of every search word, so the
 * notes of one search word's words, walked newest first in note_name_words_walk_idx with the whole
 * folded name checked on each entry (the same LIKE as the list's), are exactly the matching notes,
 * in the list's order. The search word walked is the one whose words fewest notes hold.
 */

/** More dictionary words than this for the walked search word: the walk of the list's index is as good (a short, common piece). */
export const MOST_WALKED_WORDS = 24;
/** Newest entries of a word read to estimate how many notes hold it (postingsEstimate). */
const POSTINGS_SAMPLED = 500;

export interface NameWalk {
  /** The dictionary words whose notes are walked (one search word's). */
  words: string[];
}

/**
 * The words to walk for `name`, `'none'` when a word of the search is in no name of the clinic (no
 * note can match), or undefined when this way does not apply (no word in the search, or the walked
 * one would be too many dictionary words).
 */
export async function nameWalk(clinicId: string, filters: NoteFilters & { name: string }, db: Db): Promise<NameWalk | 'none' | undefined> {
  const result = (await db.execute(sql`
    with parts as (
      select t.part, t.i, count(*) over () as k
      from unnest(string_to_array(vetflow_fold(${filters.name}), ' ')) with ordinality as t(part, i)
    ), searched as (
      select i, case when k = 1 then '%' || e || '%' when i = 1 then '%' || e when i = k then e || '%' else e end as pattern
      from parts, lateral (select replace(replace(replace(part, chr(92), chr(92) || chr(92)), '%', chr(92) || '%'), '_', chr(92) || '_') as e) escaped
      where part <> ''
    )
    select searched.i, d.word from searched
    left join ${noteNameDictionary} d on d.clinic_id = ${clinicId} and d.word like searched.pattern
    order by searched.i, d.word`)) as unknown as { rows: { i: string | number; word: string | null }[] };
  const bySearchWord = new Map<number, string[]>();
  for (const row of result.rows) {
    const words = bySearchWord.get(Number(row.i)) ?? [];
    if (row.word !== null) words.push(row.word);
    bySearchWord.set(Number(row.i), words);
  }
  const candidates = [...bySearchWord.values()];
  if (candidates.length === 0) return undefined;
  if (candidates.some((words) => words.length === 0)) return 'none';
  const walkable = candidates.filter((words) => words.length <= MOST_WALKED_WORDS);
  if (walkable.length === 0) return undefined;
  if (walkable.length === 1) return { words: walkable[0]! };
  // Several: the one fewest notes (within the dates) hold, as estimated by postingsEstimate.
  const estimates = (await db.execute(
    sql`select ${sql.join(
      walkable.map(
        (words, index) =>
          sql`(${sql.join(
            words.map((word) => postingsEstimate(clinicId, word, filters)),
            sql` + `,
          )}) as n${sql.raw(String(index))}`,
      ),
      sql`, `,
    )}`,
  )) as unknown as { rows: Record<string, string | number>[] };
  const row = estimates.rows[0]!;
  let best = 0;
  for (let index = 1; index < walkable.length; index++) {
    if (Number(row[`n${index}`]) < Number(row[`n${best}`])) best = index;
  }
  return { words: walkable[best]! };
}

/**
 * About how many notes within the dates hold `word`, from the newest POSTINGS_SAMPLED of them (a
 * few hundred index entries, not all of them): that many, when there are no more; else that many
 * times the dates' span (from the newest to the oldest holding it) over the sample's.
 */
function postingsEstimate(clinicId: string, word: string, filters: NoteFilters): SQL {
  const entries = and(
    eq(noteNameWords.clinicId, clinicId),
    eq(noteNameWords.word, word),
    ...dateConditions(noteNameWords.createdAt, filters),
  );
  return sql`(select case when count(*) < ${POSTINGS_SAMPLED} then count(*)::float8
      else ${POSTINGS_SAMPLED} * coalesce(extract(epoch from max(sampled.created_at) - (
        select ${noteNameWords.createdAt} from ${noteNameWords} where ${entries} order by ${noteNameWords.createdAt}, ${noteNameWords.noteId} limit 1))
        / nullif(extract(epoch from max(sampled.created_at) - min(sampled.created_at)), 0), 1e12) end
    from (select ${noteNameWords.createdAt} as created_at from ${noteNameWords} where ${entries}
          order by ${noteNameWords.createdAt} desc, ${noteNameWords.noteId} desc limit ${POSTINGS_SAMPLED}) sampled)`;
}

/** The date filters on a `created_at` column (the list's, or note_name_words' copy of it). */
export function dateConditions(
  column: typeof notes.createdAt | typeof noteNameWords.createdAt | typeof noteSearchDocuments.createdAt,
  filters: NoteFilters,
): SQL[] {
  const conditions: SQL[] = [];
  if (filters.from) conditions.push(gte(column, new Date(`${filters.from}T00:00:00Z`)));
  if (filters.to) conditions.push(lt(column, new Date(Date.parse(`${filters.to}T00:00:00Z`) + 86_400_000)));
  if (filters.since) conditions.push(gte(column, filters.since));
  if (filters.before) conditions.push(lt(column, filters.before));
  return conditions;
}

/** The entries of one dictionary word that match every filter (the whole name by LIKE). */
function wordEntries(clinicId: string, word: string, filters: NoteFilters & { name: string }): SQL {
  const conditions = [
    eq(noteNameWords.clinicId, clinicId),
    eq(noteNameWords.word, word),
    ...dateConditions(noteNameWords.createdAt, filters),
    sql`${noteNameWords.nameFolded} like '%' || vetflow_fold(${escapeLike(filters.name)}) || '%'`,
  ];
  if (filters.transcription_status) conditions.push(eq(noteNameWords.transcriptionStatus, filters.transcription_status));
  return and(...conditions) as SQL;
}

const newestFirst = sql`${noteNameWords.createdAt} desc, ${noteNameWords.noteId} desc`;

/**
 * The notes `page` of the matching notes, newest first (ids and places), through the walk's words.
 * One word: one backward walk of note_name_words_walk_idx that stops at the page. Several: each
 * word's walk stops at offset + limit entries (a note in the page is within that many of each
 * word it holds), and those, a few times the page, are merged.
 */
export async function nameWordsPage(
  clinicId: string,
  filters: NoteFilters & { name: string },
  walk: NameWalk,
  page: { limit: number; offset: number },
  db: Db,
): Promise<{ id: string; createdAt: string }[]> {
  const needed = page.offset + page.limit;
  const branch = (word: string, limit: number, offset: number) =>
    sql`select ${noteNameWords.noteId} as id, ${noteNameWords.createdAt} as created_at from ${noteNameWords}
        where ${wordEntries(clinicId, word, filters)} order by ${newestFirst} limit ${limit} offset ${offset}`;
  const statement =
    walk.words.length === 1
      ? sql`select id, created_at::text as created_at from (${branch(walk.words[0]!, page.limit, page.offset)}) walked`
      : sql`select id, created_at::text as created_at from (${sql.join(
          walk.words.map((word) => sql`(${branch(word, needed, 0)})`),
          sql` union `,
        )}) walked order by walked.created_at desc, walked.id desc limit ${page.limit} offset ${page.offset}`;
  const result = (await db.execute(statement)) as unknown as { rows: { id: string; created_at: string }[] };
  return result.rows.map((row) => ({ id: row.id, createdAt: row.created_at }));
}

/**
 * How many notes match, counting no further than `upTo` when given (then at most `upTo` + 1), for a
 * walk of one word (a note is then one entry); undefined for several (the list counts otherwise).
 */
export async function countNameWords(
  clinicId: string,
  filters: NoteFilters & { name: string },
  walk: NameWalk,
  upTo: number | undefined,
  db: Db,
): Promise<number | undefined> {
  if (walk.words.length !== 1) return undefined;
  const entries = sql`select 1 from ${noteNameWords} where ${wordEntries(clinicId, walk.words[0]!, filters)}`;
  const result = (await db.execute(
    sql`select count(*) as total from (${entries}${upTo === undefined ? sql`` : sql` limit ${upTo + 1}`}) matching`,
  )) as unknown as { rows: { total: string | number }[] };
  return Number(result.rows[0]?.total ?? 0);
}
