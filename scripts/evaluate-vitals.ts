// `npm run eval:vitals`: precision and recall of the vitals extraction per vital over the corpus
// (test/notes/vitals-corpus), the tuning part and the held-out part apart and together, and how
// often the species is detected right; each figure on the clean text and beside it on the same
// text as a small Whisper writes it (the noise model of test/noise/spoken-style.ts). MISSES=1
// lists what each case missed or added (clean, then spoken-style).

import { VITAL_CODES } from '../src/notes/store/vitals.schemas.ts';
import { vitalsOfText } from '../src/notes/vitals/note-vitals.ts';
import { detectSpecies } from '../src/notes/vitals/species.ts';
import { cutAnywhere, noisySentence, random, seedOf } from '../test/noise/spoken-style.ts';
import { type CorpusCase, compact, loadVitalsCorpus, precision, recall, scoreCases, total } from '../test/notes/vitals-corpus/corpus.ts';

const found = (text: string) => vitalsOfText(text).map(compact);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`.padStart(7);

/** The case as a small Whisper writes it: lower case, no punctuation, numbers in words, fillers, segments cut anywhere. */
export function spokenStyle(item: CorpusCase): CorpusCase {
  const rng = random(seedOf(item.id));
  return { ...item, text: cutAnywhere(noisySentence(item.text, rng, { seed: 0 }), rng).join(' ') };
}

function report(name: string, cases: CorpusCase[]) {
  const clean = scoreCases(cases, found);
  const noisy = scoreCases(cases.map(spokenStyle), found);
  console.log(`\n${name}: ${cases.length} consultations (clean | spoken-style)`);
  console.log(`${'vital'.padEnd(24)} ${'said'.padStart(5)}   precision  recall |  precision  recall`);
  const line = (code: string, a: ReturnType<typeof total>, b: ReturnType<typeof total>) =>
    console.log(
      `${code.padEnd(24)} ${String(a.truePositives + a.falseNegatives).padStart(5)}   ${percent(precision(a))} ${percent(recall(a))} |   ${percent(precision(b))} ${percent(recall(b))}`,
    );
  const none = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
  for (const code of VITAL_CODES) line(code, clean.perCode.get(code) ?? none, noisy.perCode.get(code) ?? none);
  line('all', total(clean.perCode), total(noisy.perCode));
  const species = cases.filter((item) => detectSpecies(item.text) === item.species).length;
  const spokenSpecies = cases.map(spokenStyle).filter((item) => detectSpecies(item.text) === item.species).length;
  console.log(`species detected right: ${species}/${cases.length} | ${spokenSpecies}/${cases.length}`);
  if (process.env.MISSES === '1') {
    for (const miss of clean.misses)
      console.log(`  ${miss.id}: missing ${JSON.stringify(miss.missing)} extra ${JSON.stringify(miss.extra)}`);
    for (const miss of noisy.misses)
      console.log(`  spoken ${miss.id}: missing ${JSON.stringify(miss.missing)} extra ${JSON.stringify(miss.extra)}`);
  }
}

const tuning = loadVitalsCorpus('tuning');
const heldOut = loadVitalsCorpus('held-out');
report('tuning', tuning);
report('held-out', heldOut);
report('all', [...tuning, ...heldOut]);
