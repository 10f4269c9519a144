// Writes src/notes/plan/lexicon/drug-lookalikes.ts: the ordinary Portuguese words that the drug
// check would take for a misheard drug (drug-likeness.ts), so that it leaves them alone. Reads a
// word list, one word a line (we used the Brazilian Portuguese list of the br.ispell project, as
// Debian packages it in `wbrazilian`, about 275,000 inflected words); keeps only the words close to
// a lexicon drug that are not drug names themselves. Run again after the lexicon or the rule
// changes:
//
//   node scripts/build-drug-lookalikes.ts WORDLIST

import { readFileSync, writeFileSync } from 'node:fs';
import { fold } from '../src/language/tokens.ts';
import { closestDrug } from '../src/notes/plan/lexicon/drug-likeness.ts';
import { builtInDrugs } from '../src/notes/plan/lexicon/lexicon.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/build-drug-lookalikes.ts WORDLIST');
  process.exit(2);
}
const drugWords = new Set(builtInDrugs().flatMap(({ phrases }) => phrases.flatMap((phrase) => phrase.split(' '))));
const words = new Set(
  readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => fold(line.trim()))
    .filter((word) => /^[a-z]+$/.test(word)),
);
const lookalikes = [...words].filter((word) => !drugWords.has(word) && closestDrug(word) !== null).sort();
const lines = [
  '// Ordinary Portuguese words that look like a lexicon drug to the drug check (drug-likeness.ts): it',
  "// never flags them. Written by scripts/build-drug-lookalikes.ts from the br.ispell project's",
  '// Brazilian Portuguese word list (Debian package `wbrazilian`): the words of that list close to a',
  '// drug name. Do not edit by hand: run the script again.',
  '',
  'export const DRUG_LOOKALIKES: readonly string[] = [',
  ...lookalikes.map((word) => `  '${word}',`),
  '];',
  '',
];
writeFileSync(new URL('../src/notes/plan/lexicon/drug-lookalikes.ts', import.meta.url), lines.join('\n'));
console.log(`${lookalikes.length} lookalikes of ${words.size} words`);
