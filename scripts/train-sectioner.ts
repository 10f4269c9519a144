// `npm run train:sectioner`: learns the sentence model from the whole labelled corpus and writes
// src/models/sectioner/model.json; learns the same model from the tuning part only and writes
// test/providers/corpus/tuned-model.json (what the held-out figures score: the test suite scores
// it, never trains); then model.fingerprint.json (what both were trained from, which a test
// checks). Minutes of CPU. Fuller held-out figures and cross-validation: `npm run eval:sectioner`.

import { writeFileSync } from 'node:fs';
import { trainSectioner } from '../src/models/sectioner/training/training.ts';
import { labelledTranscript, loadCorpus, loadWholeCorpus } from '../test/providers/corpus/corpus.ts';
import { currentFingerprint, FINGERPRINT_URL, MODEL_URL, TUNED_MODEL_URL } from '../test/providers/corpus/model-fingerprint.ts';

for (const [part, corpus, target] of [
  ['the whole corpus', loadWholeCorpus(), MODEL_URL],
  ['the tuning part', loadCorpus('tuning'), TUNED_MODEL_URL],
] as const) {
  const model = trainSectioner(corpus.map(labelledTranscript));
  writeFileSync(target, `${JSON.stringify(model)}\n`);
  console.log(
    `trained on ${part}, ${corpus.length} consultations (${corpus.reduce((n, t) => n + t.sentences.length, 0)} sentences): ` +
      `${Object.keys(model.weights).length} features → ${target.pathname}`,
  );
}
writeFileSync(FINGERPRINT_URL, `${JSON.stringify(currentFingerprint(), null, 2)}\n`);
