// `npm run train:sectioner`: learns the sentence model from the whole labelled corpus and writes
// src/providers/sectioning/model.json, and next to it model.fingerprint.json (what it was trained
// from, which a test checks). Held-out figures come from `npm run eval:sectioner`, which trains on
// the tuning part only.

import { writeFileSync } from 'node:fs';
import { trainSectioner } from '../src/providers/sectioning/training.ts';
import { labelledTranscript, loadWholeCorpus } from '../test/providers/corpus/corpus.ts';
import { currentFingerprint, FINGERPRINT_URL } from '../test/providers/corpus/model-fingerprint.ts';

const corpus = loadWholeCorpus();
const model = trainSectioner(corpus.map(labelledTranscript));
const target = new URL('../src/providers/sectioning/model.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(model)}\n`);
writeFileSync(FINGERPRINT_URL, `${JSON.stringify(currentFingerprint(), null, 2)}\n`);
console.log(
  `trained on ${corpus.length} consultations (${corpus.reduce((n, t) => n + t.sentences.length, 0)} sentences): ` +
    `${Object.keys(model.weights).length} features → ${target.pathname}`,
);
