// The words of a consultation for the plan: folded (lower case, no accents) for matching, each
// with its place in the original text so an item quotes the words it came from. Numbers keep their
// comma or point ("0,25", "2.2") and fractions ("1/2", "12/12"); "/" is a word of its own
// ("mg/kg"). Punctuation is not a word: speech-to-text punctuates at random, or not at all, so the
// extraction reads the words alone and a sentence mark is only a hint (`breakBefore`).

import { fold } from '../../language/tokens.ts';

export interface Words {
  /** Folded words and numbers, punctuation left out. */
  words: string[];
  /** Where each word is in the original text (folding keeps lengths). */
  starts: number[];
  ends: number[];
  /** A sentence mark (. ! ? ; : or a line break) between this word and the one before. */
  breakBefore: boolean[];
  /** A comma (or a sentence mark) between this word and the one before. */
  commaBefore: boolean[];
}

/**
 * Words of speech that say nothing to the plan, left out as punctuation is: the fillers a
 * speech-to-text model keeps ("né", "tipo", "aí", "então": folded). A word said twice in a row is
 * read once ("por por quilo"). So "um miligrama então por quilo" reads as "um miligrama por quilo".
 */
export const FILLERS: ReadonlySet<string> = new Set(['ne', 'tipo', 'ai', 'entao']);

const TOKEN = /\d+(?:[.,]\d+)*(?:\/\d+)?|[½¼¾]|[a-zµ]+|\/|[.!?;:\n…]|,/g;
const BREAK = /^[.!?;:\n…]$/;

export function wordsOf(text: string): Words {
  const words: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const breakBefore: boolean[] = [];
  const commaBefore: boolean[] = [];
  let pendingBreak = false;
  let pendingComma = false;
  for (const match of fold(text).matchAll(TOKEN)) {
    const word = match[0];
    if (BREAK.test(word)) {
      pendingBreak = true;
      continue;
    }
    if (word === ',') {
      pendingComma = true;
      continue;
    }
    // Said twice: one word (its first place names it).
    if (word === words.at(-1) && !pendingBreak && !pendingComma) continue;
    // A filler's marks stay for the next word.
    if (FILLERS.has(word)) continue;
    words.push(word);
    starts.push(match.index);
    ends.push(match.index + word.length);
    breakBefore.push(pendingBreak);
    commaBefore.push(pendingBreak || pendingComma);
    pendingBreak = false;
    pendingComma = false;
  }
  return { words, starts, ends, breakBefore, commaBefore };
}

/** Does `phrase` (words) start at `at`? */
export const startsWith = (words: readonly string[], at: number, phrase: readonly string[]) =>
  phrase.every((word, i) => words[at + i] === word);

/** A table of phrases (space-separated, folded) by their first word, longest first. */
export class PhraseTable<T> {
  private readonly byFirst = new Map<string, { words: string[]; value: T }[]>();

  constructor(entries: Iterable<readonly [string, T]>) {
    for (const [phrase, value] of entries) this.add(phrase, value);
  }

  add(phrase: string, value: T): void {
    const words = phraseWords(phrase);
    if (words.length === 0) return;
    const list = this.byFirst.get(words[0]!) ?? [];
    if (list.some((entry) => entry.words.join(' ') === words.join(' '))) return;
    list.push({ words, value });
    list.sort((a, b) => b.words.length - a.words.length);
    this.byFirst.set(words[0]!, list);
  }

  /**
   * The longest phrase starting at `at`, with the word after it. With `barrier`, a phrase does not
   * run over a word marked in it (a comma before it: "Tiamulina, não, vou passar ...").
   */
  at(words: readonly string[], at: number, barrier?: readonly boolean[]): { value: T; end: number } | null {
    const list = this.byFirst.get(words[at] ?? '');
    if (!list) return null;
    for (const entry of list) {
      if (!startsWith(words, at, entry.words)) continue;
      if (barrier && entry.words.some((_, i) => i > 0 && barrier[at + i])) continue;
      return { value: entry.value, end: at + entry.words.length };
    }
    return null;
  }

  /** The longest phrase ending just before `end` (its first word, or null). */
  endingAt(words: readonly string[], end: number, longest: number, barrier?: readonly boolean[]): { value: T; first: number } | null {
    for (let length = Math.min(longest, end); length >= 1; length--) {
      const hit = this.at(words, end - length, barrier);
      if (hit && hit.end === end) return { value: hit.value, first: end - length };
    }
    return null;
  }
}

/** A phrase as the tokenizer reads it: "Leish-Tec" → ["leish", "tec"], "mg/kg" → ["mg", "/", "kg"]. */
export function phraseWords(phrase: string): string[] {
  return wordsOf(phrase).words;
}
