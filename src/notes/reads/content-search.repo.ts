import type { Db } from '../../platform/db/client.ts';
import { and, count, eq, type SQL, sql } from '../../platform/db/drizzle.ts';
import { noteSearchDocuments, noteSections, notes } from '../../platform/db/schema/index.ts';
import type { ContentQuery } from './content-query.ts';
import { dateConditions } from './name-words.repo.ts';
import type { NoteFilters } from './note-filters.ts';

// The text search configuration the documents are written in (note-search.sql): the query is
// parsed by the same one, or its stems would not meet the documents'.
const CONFIG = sql.raw(`'public.vetflow_portuguese'::regconfig`);

/** A content search that can match something: at least one word or phrase the parser keeps. */
export const searchable = (query: ContentQuery) => query.words.length + query.phrases.length > 0;

/** Every word (stop words dropped by the parser) and every phrase (in order), all required. */
function allOf(query: ContentQuery): SQL {
  const parts: SQL[] = [];
  if (query.words.length) parts.push(sql`plainto_tsquery(${CONFIG}, ${query.words.join(' ')})`);
  for (const phrase of query.phrases) parts.push(sql`phraseto_tsquery(${CONFIG}, ${phrase.join(' ')})`);
  return sql.join(parts, sql` && `);
}

/** Any word or phrase: what marks the words of a section that holds only some of them. */
function anyOf(query: ContentQuery): SQL {
  const parts = [
    ...query.words.map((word) => sql`plainto_tsquery(${CONFIG}, ${word})`),
    ...query.phrases.map((phrase) => sql`phraseto_tsquery(${CONFIG}, ${phrase.join(' ')})`),
  ];
  return sql.join(parts, sql` || `);
}

// Each folded letter as the letters it stands for in the text, both cases: `otite` meets "Otite",
// "OTITE" and "otíte" without unaccenting every section of every candidate (vetflow_fold costs
// microseconds a section; a character class costs nothing more than the letter).
const VARIANTS: Record<string, string> = {
  a: 'aáàâãä',
  e: 'eéèêë',
  i: 'iíìîï',
  o: 'oóòôõö',
  u: 'uúùûü',
  c: 'cç',
  n: 'nñ',
};
const letterClass = (char: string) => {
  const variants = VARIANTS[char] ?? char;
  return /\p{L}/u.test(char) ? `[${variants}${variants.toUpperCase()}]` : char;
};

/**
 * A phrase as written: its words one after the other, whole words, only separators between them,
 * accents and case aside. The stems' `<->` finds "otites externas" for "otite externa"; this keeps
 * only the exact phrase. The words are letters and digits only (content-query.ts), so nothing in
 * them is a regular-expression operator.
 */
const phrasePattern = (phrase: string[]) =>
  `(^|[^[:alnum:]])${phrase.map((word) => [...word].map(letterClass).join('')).join('[^[:alnum:]]+')}($|[^[:alnum:]])`;

function phraseWritten(phrase: string[]): SQL {
  const pattern = phrasePattern(phrase);
  // Scalar subqueries, not EXISTS: under an OR the planner may turn an EXISTS into a hashed
  // subplan that runs the pattern over every section of the table; these run per candidate only.
  return sql`(coalesce((select bool_or(${noteSections.content} ~ ${pattern}) from ${noteSections}
      where ${noteSections.noteId} = ${noteSearchDocuments.noteId}), false)
    or coalesce((select ${notes.name} ~ ${pattern} from ${notes} where ${notes.id} = ${noteSearchDocuments.noteId}), false))`;
}

/**
 * The list's filters the document does not carry (status, external id, name), checked on the note
 * (a semi-join by primary key); none → the documents alone are read, no note at all (a count of a
 * common word then never joins the notes table).
 */
function onNote(notesWhere: SQL | undefined): SQL | undefined {
  return notesWhere && sql`exists (select 1 from ${notes} where ${notes.id} = ${noteSearchDocuments.noteId} and ${notesWhere})`;
}

/** The clinic's notes whose document holds the query and that pass `notesWhere` (the list's other filters). */
function matching(clinicId: string, query: ContentQuery, filters: NoteFilters, notesWhere: SQL | undefined): SQL {
  return and(
    eq(noteSearchDocuments.clinicId, clinicId),
    sql`${noteSearchDocuments.document} @@ (${allOf(query)})`,
    ...dateConditions(noteSearchDocuments.createdAt, filters),
    onNote(notesWhere),
    ...query.phrases.map(phraseWritten),
  ) as SQL;
}

// Newest first, NULLS LAST as note_search_documents_clinic_created_idx is built: plain DESC means
// NULLS FIRST, which that index cannot return in order, so every walk would sort the clinic's documents.
const newestFirst = sql`${noteSearchDocuments.createdAt} desc nulls last, ${noteSearchDocuments.noteId} desc nulls last`;

/** Documents a page walks first, newest first, before it turns to the GIN index (see contentPage). */
export const CONTENT_WALK = 2_000;

/** A note's place in the list's order; `createdAt` as Postgres prints it, to the microsecond. */
interface Place {
  id: string;
  createdAt: string;
}

/**
 * The ids of one page of matching notes, newest first (the list's order: created_at desc, id desc).
 *
 * The planner cannot know how many notes a query matches, and either plan is bad for the other
 * case: sorting every match of a common word (`vômito`, a tenth of the clinic) or walking the whole
 * clinic for a rare one. So, as the name search does: first the clinic's newest CONTENT_WALK
 * documents are walked in the list's order (note_search_documents_clinic_created_idx), the query
 * checked on each, stopping at the page's end; a common word finds its page there. What the walk
 * did not find comes from the GIN index, limited to the notes older than the walk, sorted (few by
 * then: the word is rare among them). With an external id the patient's few notes are read through
 * their own index at once. Either way the same notes in the same order as one sorted query.
 */
export async function contentPage(
  clinicId: string,
  query: ContentQuery,
  filters: NoteFilters,
  notesWhere: SQL | undefined,
  page: { limit: number; offset: number },
  db: Db,
): Promise<string[]> {
  if (!searchable(query)) return [];
  const needed = page.offset + page.limit;
  const found: Place[] = [];
  let after: Place | undefined;
  if (!filters.external_id) {
    const walked = await walkDocuments(clinicId, query, filters, notesWhere, needed, db);
    found.push(...walked.matches);
    if (found.length >= needed || !walked.last) return found.slice(page.offset, needed).map((place) => place.id);
    after = walked.last;
  }
  const ids = after
    ? await olderMatching(sql`${matching(clinicId, query, filters, notesWhere)} and ${olderThan(after)}`, needed - found.length, db)
    : (
        await db
          .select({ id: noteSearchDocuments.noteId })
          .from(noteSearchDocuments)
          .where(matching(clinicId, query, filters, notesWhere))
          .orderBy(newestFirst)
          .limit(needed)
      ).map((row) => row.id);
  return [...found.map((place) => place.id), ...ids].slice(page.offset, needed);
}

const olderThan = (place: Place) =>
  sql`(${noteSearchDocuments.createdAt}, ${noteSearchDocuments.noteId}) < (${place.createdAt}::timestamptz, ${place.id}::uuid)`;

/**
 * The first `needed` documents matching `where` (older than a walk that found too few), newest
 * first, through the GIN index: the walk has shown the query to be rare, so its matches are few.
 * MATERIALIZED keeps the planner from walking the date index again for the ORDER BY ... LIMIT
 * (it did: 98,000 documents checked one by one for a word 36 notes hold).
 */
async function olderMatching(where: SQL, needed: number, db: Db): Promise<string[]> {
  const d = noteSearchDocuments;
  const result = (await db.execute(sql`
    with matching as materialized (select ${d.noteId} as id, ${d.createdAt} as created_at from ${d} where ${where})
    select id from matching order by created_at desc nulls last, id desc nulls last limit ${needed}`)) as unknown as {
    rows: { id: string }[];
  };
  return result.rows.map((row) => row.id);
}

/**
 * Walks the clinic's newest CONTENT_WALK documents (within the dates) in the list's order and
 * returns the first `needed` that match the query and the list's other filters, and `last` (the
 * last document walked) when the walk ended at its bound without finding them all. The filters are
 * checked on each entry, not used to skip entries, so the walk reads at most CONTENT_WALK entries
 * whatever they match; row_number() counts the entries as they stream (the walk stops as soon as
 * `needed` matches are found).
 */
async function walkDocuments(
  clinicId: string,
  query: ContentQuery,
  filters: NoteFilters,
  notesWhere: SQL | undefined,
  needed: number,
  db: Db,
): Promise<{ matches: Place[]; last: Place | undefined }> {
  const d = noteSearchDocuments;
  const hit = and(sql`${d.document} @@ (${allOf(query)})`, onNote(notesWhere), ...query.phrases.map(phraseWritten)) as SQL;
  const result = (await db.execute(sql`
    select id, created_at, hit, n from (
      select ${d.noteId} as id, ${d.createdAt}::text as created_at, ${hit} as hit,
             row_number() over (order by ${newestFirst}) as n
      from ${d}
      where ${and(eq(d.clinicId, clinicId), ...dateConditions(d.createdAt, filters))}
      order by ${newestFirst}
      limit ${CONTENT_WALK}
    ) walked
    where hit or n = ${CONTENT_WALK}
    limit ${needed + 1}`)) as unknown as { rows: { id: string; created_at: string; hit: boolean; n: string | number }[] };
  const matches = result.rows.filter((row) => row.hit).map((row) => ({ id: row.id, createdAt: row.created_at }));
  const end = result.rows.find((row) => Number(row.n) === CONTENT_WALK);
  return {
    matches: matches.slice(0, needed),
    last: matches.length < needed && end ? { id: end.id, createdAt: end.created_at } : undefined,
  };
}

/** How many notes match, counting no further than `upTo` when given (then at most `upTo` + 1). */
export async function countContent(
  clinicId: string,
  query: ContentQuery,
  filters: NoteFilters,
  notesWhere: SQL | undefined,
  upTo: number | undefined,
  db: Db,
): Promise<number> {
  if (!searchable(query)) return 0;
  const found = db
    .select({ one: sql`1`.as('one') })
    .from(noteSearchDocuments)
    .where(matching(clinicId, query, filters, notesWhere));
  const limited = (upTo === undefined ? found : found.limit(upTo + 1)).as('matching');
  const [row] = await db.select({ total: count() }).from(limited);
  return Number(row?.total ?? 0);
}

export interface ContentMatch {
  section_label: string;
  snippet: string;
}

/** The label a match in the patient's name carries (no section has it: labels are snake_case section names). */
export const NAME_MATCH_LABEL = 'patient_name';

// Marks as the issue asks («…»), a few words around each, at most two fragments a section.
const HEADLINE = 'StartSel=«, StopSel=», MinWords=8, MaxWords=24, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

/**
 * Where each note of a page matched: the patient's name and each section (in the note's order) that
 * holds any of the query's words or phrases, its text around them with the words marked «…».
 */
export async function contentMatches(ids: string[], query: ContentQuery, db: Db): Promise<Map<string, ContentMatch[]>> {
  const matches = new Map<string, ContentMatch[]>(ids.map((id) => [id, []]));
  if (ids.length === 0 || !searchable(query)) return matches;
  const any = anyOf(query);
  const result = (await db.execute(sql`
    with q as materialized (select (${any}) as query)
    select id as note_id, ${NAME_MATCH_LABEL} as label, ts_headline(${CONFIG}, name, q.query, ${HEADLINE}) as snippet, -1 as position, id as section_id
    from ${notes}, q
    where id in ${ids} and to_tsvector(${CONFIG}, name) @@ q.query
    union all
    select s.note_id, s.label, ts_headline(${CONFIG}, s.content, q.query, ${HEADLINE}), s.position, s.id
    from ${noteSections} s, q
    where s.note_id in ${ids} and to_tsvector(${CONFIG}, s.content) @@ q.query
    order by 1, 4, 5`)) as unknown as { rows: { note_id: string; label: string; snippet: string }[] };
  for (const row of result.rows) matches.get(row.note_id)?.push({ section_label: row.label, snippet: row.snippet });
  return matches;
}
