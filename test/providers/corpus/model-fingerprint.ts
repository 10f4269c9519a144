// What the shipped sectioner model was trained from: hashes of the labelled corpus, of the code
// that learns and applies the model, of model.json itself and of the held-out evaluation's model
// (trained on the tuning part only, tuned-model.json beside this file). `npm run train:sectioner`
// writes both models and these hashes; a test recomputes them in milliseconds, where retraining
// takes minutes (`npm run check:sectioner` retrains both and compares, for when that proof is
// wanted). No test trains a model.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export interface ModelFingerprint {
  corpus: string;
  training_code: string;
  model: string;
  tuned_model: string;
}

const SECTIONER = new URL('../../../src/models/sectioner/', import.meta.url);
const LANGUAGE = new URL('../../../src/language/', import.meta.url);
const CORPUS = new URL('./', import.meta.url);
export const MODEL_URL = new URL('model.json', SECTIONER);
export const FINGERPRINT_URL = new URL('model.fingerprint.json', SECTIONER);
/** The model trained on the tuning part of the corpus only: what the held-out figures score. */
export const TUNED_MODEL_URL = new URL('tuned-model.json', CORPUS);

function sha256Of(urls: URL[]): string {
  const hash = createHash('sha256');
  for (const url of urls) {
    // The file's name too, so that moving content between files changes the hash.
    hash.update(url.pathname.slice(url.pathname.lastIndexOf('/') + 1)).update('\0');
    hash.update(readFileSync(url)).update('\0');
  }
  return hash.digest('hex');
}

const sorted = (dir: URL, suffix: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => new URL(name, dir));

/** The fingerprint of the corpus, the sectioning code and the model as they are on disk now. */
export function currentFingerprint(): ModelFingerprint {
  return {
    corpus: sha256Of([new URL('tuning.json', CORPUS), new URL('held-out.json', CORPUS), ...sorted(new URL('batches/', CORPUS), '.json')]),
    // The model's code and training, and the pt-BR text helpers they read sentences with.
    training_code: sha256Of([
      ...sorted(SECTIONER, '.ts'),
      ...sorted(new URL('training/', SECTIONER), '.ts'),
      ...['fold.ts', 'headings.ts', 'sections.ts', 'sentences.ts'].map((name) => new URL(name, LANGUAGE)),
      new URL('corpus.ts', CORPUS),
    ]),
    model: sha256Of([MODEL_URL]),
    tuned_model: sha256Of([TUNED_MODEL_URL]),
  };
}
