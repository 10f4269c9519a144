// Drug names the speech-to-text model may have misheard: a word, or two words written apart, that
// is no drug and no ordinary word but is close to a lexicon drug in spelling and sound
// (drug-likeness.ts): "carpofeno" (carprofeno), "meloxican" (meloxicam), "amoxi cilina"
// (amoxicilina). Nothing is corrected: each becomes a review flag (possible_drug_misrecognition)
// and is read by the plan as the drug it resembles, under the name as said.

import { CLINICAL_WORDS, COMMON_SHORT_WORDS } from '../../../language/common-words.ts';
import type { Words } from '../tokens.ts';
import { closestDrug } from './drug-likeness.ts';
import { DRUG_LOOKALIKES } from './drug-lookalikes.ts';
import { builtInDrugs, type Drug } from './lexicon.ts';

export interface MisheardDrug {
  /** Indices of the words said: [first, end). */
  first: number;
  end: number;
  /** The words as folded, joined by a space ("carpofeno", "amoxi cilina"). */
  said: string;
  /** The lexicon drug it resembles (its reported name: "carprofeno"). */
  suggestion: Drug;
}

let known: Set<string> | null = null;

/** Words never taken for a misheard drug: every word of a lexicon name, and the ordinary words that look like one. */
function knownWords(): Set<string> {
  known ??= new Set([
    ...builtInDrugs().flatMap(({ phrases }) => phrases.flatMap((phrase) => phrase.split(' '))),
    ...DRUG_LOOKALIKES,
    ...COMMON_SHORT_WORDS,
    ...CLINICAL_WORDS,
  ]);
  return known;
}

const isWord = (word: string | undefined): word is string => word !== undefined && /^[a-z]+$/.test(word);

/** A word that may be half of a name written in two: three letters or more, and no common short word. */
const splittable = (word: string) => word.length >= 3 && !COMMON_SHORT_WORDS.has(word);

let drugWords: Set<string> | null = null;

/** A one-word name of the lexicon. */
function isDrugWord(word: string): boolean {
  drugWords ??= new Set(builtInDrugs().flatMap(({ phrases }) => phrases.filter((phrase) => !phrase.includes(' '))));
  return drugWords.has(word);
}

/** The misheard drug names among `w`'s words; `clinicDrugNames` are known words too. */
export function misheardDrugs(w: Pick<Words, 'words' | 'breakBefore'>, clinicDrugNames: readonly string[] = []): MisheardDrug[] {
  const clinic = new Set(
    clinicDrugNames.flatMap((name) =>
      name
        .toLowerCase()
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .split(/\s+/),
    ),
  );
  const isKnown = (word: string) => knownWords().has(word) || clinic.has(word);
  // A consultation says the same words again and again: each is compared with the lexicon once.
  const compared = new Map<string, ReturnType<typeof closestDrug>>();
  const closest = (word: string) => {
    if (!compared.has(word)) compared.set(word, closestDrug(word));
    return compared.get(word)!;
  };
  const found: MisheardDrug[] = [];
  for (let at = 0; at < w.words.length; at++) {
    const word = w.words[at];
    if (!isWord(word)) continue;
    // Two words written apart first ("amoxi cilina", "meta dona"): one of them unknown, together a
    // drug or close to one. Never with a common short word ("com osso" is no "colosso"), and a
    // drug followed by a word is a split only when the two make a name exactly ("meloxicam se" is
    // the drug and a word).
    const next = w.words[at + 1];
    if (isWord(next) && !w.breakBefore[at + 1] && (!isKnown(word) || !isKnown(next)) && splittable(word) && splittable(next)) {
      const joined = `${word}${next}`;
      const drug = closest(joined);
      const single = isKnown(word) ? null : closest(word);
      const exactOnly = isDrugWord(word) || isDrugWord(next);
      if (drug && (!exactOnly || drug.edits === 0) && (!single || drug.edits < single.edits)) {
        found.push({ first: at, end: at + 2, said: `${word} ${next}`, suggestion: drug.spelling.drug });
        at++;
        continue;
      }
    }
    if (isKnown(word)) continue;
    const drug = closest(word);
    if (drug) found.push({ first: at, end: at + 1, said: word, suggestion: drug.spelling.drug });
  }
  return found;
}
