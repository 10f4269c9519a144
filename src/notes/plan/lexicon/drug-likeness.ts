// When a written word may be a lexicon drug misheard: close in spelling (edit distance) and in sound
// (the Portuguese phonetic key). Shared by the check of a transcript (misheard-drugs.ts) and by the
// script that picks the ordinary words that look like drugs (scripts/build-drug-lookalikes.ts), so
// both use one rule.

import { editDistance } from '../../../language/edit-distance.ts';
import { phoneticKey } from '../../../language/phonetic-key.ts';
import { builtInDrugs, type Drug } from './lexicon.ts';

/** A lexicon spelling a word is compared with. */
export interface DrugSpelling {
  /** The phrase without spaces, folded ("amoxicilina", "nexgard"). */
  spelling: string;
  key: string;
  drug: Drug;
}

/** Shorter words are left alone: too many ordinary words are one edit from a short name. */
export const MIN_LENGTH = 5;

/** Edits allowed for a name of `length` letters. */
const allowedEdits = (length: number) => (length < 7 ? 1 : length < 10 ? 2 : 3);

let spellings: Map<string, DrugSpelling[]> | null = null;

/** The built-in lexicon's one-word names and variants, by the first letter of their key. */
export function drugSpellings(): Map<string, DrugSpelling[]> {
  if (spellings) return spellings;
  spellings = new Map();
  const seen = new Set<string>();
  for (const { drug, phrases } of builtInDrugs()) {
    for (const phrase of phrases) {
      if (phrase.includes(' ') || phrase.length < MIN_LENGTH || seen.has(phrase) || !/^[a-z]+$/.test(phrase)) continue;
      seen.add(phrase);
      const key = phoneticKey(phrase);
      const list = spellings.get(key[0]!) ?? [];
      list.push({ spelling: phrase, key, drug });
      spellings.set(key[0]!, list);
    }
  }
  return spellings;
}

/**
 * The lexicon spelling `word` (folded letters, no spaces) may be a mishearing of, or null: within
 * the edits its length allows and sounding alike (keys at most one edit apart), or one edit from a
 * name of 6 letters or more. The first sound must agree (models rarely mishear a word's start).
 * The closest wins; a generic before a brand at the same distance.
 */
export function closestDrug(word: string): { spelling: DrugSpelling; edits: number } | null {
  if (word.length < MIN_LENGTH) return null;
  const key = phoneticKey(word);
  let best: { spelling: DrugSpelling; edits: number } | null = null;
  for (const candidate of drugSpellings().get(key[0] ?? '') ?? []) {
    const allowed = allowedEdits(candidate.spelling.length);
    if (Math.abs(candidate.spelling.length - word.length) > allowed) continue;
    const edits = editDistance(word, candidate.spelling, allowed);
    if (edits > allowed) continue;
    if (edits === 0) return { spelling: candidate, edits };
    const alike = editDistance(key, candidate.key, 1) <= 1;
    if (!alike && !(edits <= 1 && candidate.spelling.length >= 6)) continue;
    const better =
      !best ||
      edits < best.edits ||
      (edits === best.edits && candidate.drug.generic === candidate.drug.name && best.spelling.drug.generic !== best.spelling.drug.name);
    if (better) best = { spelling: candidate, edits };
  }
  return best;
}
