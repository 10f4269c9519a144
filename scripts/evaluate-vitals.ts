// `npm run eval:vitals`: precision and recall of the vitals extraction per vital over the corpus
// (test/notes/vitals-corpus), the tuning part and the held-out part apart and together, and how
// often the species is detected right. MISSES=1 lists what each case missed or added.

import { VITAL_CODES } from '../src/notes/store/vitals.schemas.ts';
import { vitalsOfText } from '../src/notes/vitals/note-vitals.ts';
import { detectSpecies } from '../src/notes/vitals/species.ts';
import { type CorpusCase, compact, loadVitalsCorpus, precision, recall, scoreCases, total } from '../test/notes/vitals-corpus/corpus.ts';

const found = (text: string) => vitalsOfText(text).map(compact);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`.padStart(7);

function report(name: string, cases: CorpusCase[]) {
  const { perCode, misses } = scoreCases(cases, found);
  console.log(`\n${name}: ${cases.length} consultations`);
  console.log(`${'vital'.padEnd(24)} ${'said'.padStart(5)} ${'found'.padStart(6)} precision  recall`);
  for (const code of VITAL_CODES) {
    const score = perCode.get(code) ?? { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
    const said = score.truePositives + score.falseNegatives;
    const got = score.truePositives + score.falsePositives;
    console.log(
      `${code.padEnd(24)} ${String(said).padStart(5)} ${String(got).padStart(6)}   ${percent(precision(score))} ${percent(recall(score))}`,
    );
  }
  const all = total(perCode);
  console.log(
    `${'all'.padEnd(24)} ${String(all.truePositives + all.falseNegatives).padStart(5)} ${String(all.truePositives + all.falsePositives).padStart(6)}   ${percent(precision(all))} ${percent(recall(all))}`,
  );
  const species = cases.filter((item) => detectSpecies(item.text) === item.species).length;
  console.log(`species detected right: ${species}/${cases.length}`);
  if (process.env.MISSES === '1')
    for (const miss of misses) console.log(`  ${miss.id}: missing ${JSON.stringify(miss.missing)} extra ${JSON.stringify(miss.extra)}`);
}

const tuning = loadVitalsCorpus('tuning');
const heldOut = loadVitalsCorpus('held-out');
report('tuning', tuning);
report('held-out', heldOut);
report('all', [...tuning, ...heldOut]);
