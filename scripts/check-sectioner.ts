// `npm run check:sectioner`: retrains the sentence model from the whole corpus (a minute or more)
// and fails unless it is exactly the shipped src/providers/sectioning/model.json. The test suite
// checks the cheaper fingerprint (test/providers/corpus/model-fingerprint.ts) instead.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { trainSectioner } from '../src/providers/sectioning/training.ts';
import { labelledTranscript, loadWholeCorpus } from '../test/providers/corpus/corpus.ts';
import { MODEL_URL } from '../test/providers/corpus/model-fingerprint.ts';

const shipped = JSON.parse(readFileSync(MODEL_URL, 'utf8'));
const trained = JSON.parse(JSON.stringify(trainSectioner(loadWholeCorpus().map(labelledTranscript))));
if (!isDeepStrictEqual(shipped, trained)) {
  console.error('model.json is not what training on the corpus learns: run npm run train:sectioner and commit both files');
  process.exit(1);
}
console.log('model.json is what training on the whole corpus learns');
