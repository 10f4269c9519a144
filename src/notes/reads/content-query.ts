import { z } from 'zod';
import { fold } from '../../language/fold.ts';

/** The longest `q` a list takes: longer is refused (422), never truncated into another search. */
export const CONTENT_QUERY_MAX_CHARS = 200;
/** Words and phrases a `q` may hold, together: each one is a term every match must satisfy. */
export const CONTENT_QUERY_MAX_TERMS = 16;

/** What a content search asks: words (all required) and quoted phrases (each exact, in order). */
export interface ContentQuery {
  /** The unquoted words, each as typed (the database stems and folds them). */
  words: string[];
  /** Each quoted phrase as its words, folded: a note must hold them one after the other. */
  phrases: string[][];
}

// Letters and digits are what the text search parser keeps; anything else (`%`, `_`, `*`, quotes,
// punctuation) only separates words, so no character of a query is an operator anywhere.
const WORD = /[\p{L}\p{N}]+/gu;

/** `q` split into its phrases ("…", an unclosed quote runs to the end) and the words outside them. */
export function parseContentQuery(q: string): ContentQuery {
  const words: string[] = [];
  const phrases: string[][] = [];
  q.split('"').forEach((piece, index) => {
    const found = piece.match(WORD) ?? [];
    if (index % 2 === 0) words.push(...found);
    else if (found.length > 1) phrases.push(found.map(fold));
    else words.push(...found);
  });
  return { words, phrases };
}

/** The `q` parameter: validated here so that every refusal is the documented 422. */
export const ContentQueryParam = z
  .string()
  .trim()
  .min(1)
  .max(CONTENT_QUERY_MAX_CHARS)
  .refine((q) => !q.includes('\u0000'), { message: 'q must not contain NUL characters' })
  .refine(
    (q) => {
      const { words, phrases } = parseContentQuery(q);
      return words.length + phrases.length <= CONTENT_QUERY_MAX_TERMS;
    },
    { message: `q may hold at most ${CONTENT_QUERY_MAX_TERMS} words and phrases` },
  )
  .meta({
    description:
      'Search inside the notes: the current text of every section and the patient name. Portuguese-aware: case and ' +
      'accents ignored, plurals and verb forms found ("vômito" finds "vomitou", "otite" finds "otites"); several words ' +
      `must all be in the note; "quoted phrases" must appear as written (accents and case aside). At most ${CONTENT_QUERY_MAX_CHARS} ` +
      `characters and ${CONTENT_QUERY_MAX_TERMS} words and phrases. Items then carry \`matches\`, newest first like every list.`,
  });
