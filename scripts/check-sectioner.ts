// `npm run check:sectioner`: retrains the sentence model from the whole corpus and from its tuning
// part (minutes) and fails unless they are exactly the shipped src/models/sectioner/model.json
// and test/providers/corpus/tuned-model.json. The test suite checks the cheaper fingerprint
// (test/providers/corpus/model-fingerprint.ts) instead.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { trainSectioner } from '../src/models/sectioner/training/training.ts';
import { labelledTranscript, loadCorpus, loadWholeCorpus } from '../test/providers/corpus/corpus.ts';
import { MODEL_URL, TUNED_MODEL_URL } from '../test/providers/corpus/model-fingerprint.ts';

let failed = false;
for (const [name, corpus, shippedUrl] of [
  ['model.json', loadWholeCorpus(), MODEL_URL],
  ['tuned-model.json', loadCorpus('tuning'), TUNED_MODEL_URL],
] as const) {
  const shipped = JSON.parse(readFileSync(shippedUrl, 'utf8'));
  const trained = JSON.parse(JSON.stringify(trainSectioner(corpus.map(labelledTranscript))));
  if (isDeepStrictEqual(shipped, trained)) {
    console.log(`${name} is what training on its corpus learns`);
  } else {
    console.error(
      `${name} is not what training on its corpus learns: run npm run train:sectioner and commit the models with the fingerprint`,
    );
    failed = true;
  }
}
if (failed) process.exit(1);
