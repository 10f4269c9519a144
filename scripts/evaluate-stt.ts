// `npm run eval:stt -- --base-url URL --dir DIR`: what a speech-to-text server makes of your own
// recordings, with and without the prompt vetflow sends (docs/notes-speech-robustness.md). Each
// DIR/NAME.{wav,mp3,m4a} is sent with its reference transcript DIR/NAME.txt beside it, twice:
// without a prompt, and with the prompt the app would send (the lexicon's likeliest drugs, and the
// names of --drug-names). Prints per recording and in total the word error rate, the recall of the
// reference's drug names, and the possible_drug_misrecognition flags raised.
//
// Options: --api-key KEY, --model NAME (default whisper-1), --language pt, --drug-names "A,B",
// --patient NAME, --prompt-max-chars N (default TRANSCRIPTION_PROMPT_MAX_CHARS's, 550).

import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fold } from '../src/language/fold.ts';
import { builtInDrugs } from '../src/notes/plan/lexicon/lexicon.ts';
import { LIKELY_DRUGS } from '../src/notes/plan/lexicon/likely-drugs.ts';
import { misheardDrugFlags } from '../src/notes/plan/misheard-flags.ts';
import { wordsOf } from '../src/notes/plan/tokens.ts';
import { createOpenAiTranscriber } from '../src/providers/transcription/openai.ts';
import { AUDIO_CONTENT_TYPES, type AudioFormat } from '../src/providers/transcription/port.ts';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    dir: { type: 'string' },
    'api-key': { type: 'string' },
    model: { type: 'string', default: 'whisper-1' },
    language: { type: 'string', default: 'pt' },
    'drug-names': { type: 'string', default: '' },
    patient: { type: 'string' },
    'prompt-max-chars': { type: 'string', default: '550' },
  },
});
if (!values['base-url'] || !values.dir) {
  console.error('usage: npm run eval:stt -- --base-url URL --dir DIR [--api-key KEY] [--model NAME] [--drug-names "A,B"]');
  process.exit(2);
}
const dir = values.dir;
const drugNames = values['drug-names']
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const terms = [...(values.patient ? [values.patient] : []), ...drugNames, ...LIKELY_DRUGS];

const FORMATS: Record<string, AudioFormat> = { '.wav': 'wav', '.mp3': 'mp3', '.m4a': 'm4a' };
const recordings = readdirSync(dir)
  .filter((name) => FORMATS[path.extname(name).toLowerCase()] && existsSync(path.join(dir, `${path.parse(name).name}.txt`)))
  .sort();
if (recordings.length === 0) {
  console.error(`no NAME.wav, NAME.mp3 or NAME.m4a with a NAME.txt beside it in ${dir}`);
  process.exit(2);
}

/** Words for scoring: folded, no punctuation. */
const wordsFor = (text: string) => wordsOf(text).words.filter((word) => /[a-z0-9]/.test(word));

/** Word-level edit distance (substitutions, insertions, deletions). */
function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[hypothesis.length]!;
}

const drugPhrases = [
  ...new Set([...builtInDrugs().flatMap(({ phrases }) => phrases), ...drugNames.map((name) => fold(name).toLowerCase())]),
].sort((a, b) => b.length - a.length);

/** The lexicon's (and --drug-names') names said in `text`, each as often as said. */
function drugsIn(text: string): string[] {
  let rest = ` ${wordsFor(text).join(' ')} `;
  const found: string[] = [];
  for (const phrase of drugPhrases) {
    const needle = ` ${phrase} `;
    for (let at = rest.indexOf(needle); at >= 0; at = rest.indexOf(needle)) {
      found.push(phrase);
      rest = `${rest.slice(0, at)} ${rest.slice(at + needle.length)}`;
    }
  }
  return found;
}

/** How many of the reference's drug names the hypothesis also says. */
function drugsRecalled(reference: string[], hypothesis: string[]): number {
  const left = [...hypothesis];
  let recalled = 0;
  for (const drug of reference) {
    const at = left.indexOf(drug);
    if (at >= 0) {
      recalled++;
      left.splice(at, 1);
    }
  }
  return recalled;
}

interface Tally {
  edits: number;
  words: number;
  drugs: number;
  recalled: number;
  flags: number;
}
const tally = (): Tally => ({ edits: 0, words: 0, drugs: 0, recalled: 0, flags: 0 });
const totals = { without: tally(), with: tally() };
const percent = (part: number, whole: number) => (whole === 0 ? '   -  ' : `${((100 * part) / whole).toFixed(1)}%`.padStart(6));
const line = (t: Tally) => `WER ${percent(t.edits, t.words)}  drugs ${t.recalled}/${t.drugs}  flags ${t.flags}`;

for (const name of recordings) {
  const file = path.join(dir, name);
  const format = FORMATS[path.extname(name).toLowerCase()]!;
  const reference = readFileSync(path.join(dir, `${path.parse(name).name}.txt`), 'utf8');
  const referenceWords = wordsFor(reference);
  const referenceDrugs = drugsIn(reference);
  console.log(`\n${name}: ${referenceWords.length} words, ${referenceDrugs.length} drug names`);
  for (const mode of ['without', 'with'] as const) {
    const transcriber = createOpenAiTranscriber({
      baseUrl: values['base-url'],
      apiKey: values['api-key'],
      model: values.model,
      language: values.language,
      timeoutMs: 900_000,
      promptMaxChars: mode === 'with' ? Number(values['prompt-max-chars']) : 0,
    });
    const transcript = await transcriber.transcribe(
      {
        openAudio: () => createReadStream(file),
        fileName: name,
        format,
        contentType: AUDIO_CONTENT_TYPES[format],
        sizeBytes: statSync(file).size,
        durationSeconds: 0,
        sha256: '',
        prompt: { terms },
      },
      AbortSignal.timeout(900_000),
    );
    const hypothesisWords = wordsFor(transcript.text);
    const flags = misheardDrugFlags({ text: transcript.text, segments: transcript.segments }, drugNames);
    const t: Tally = {
      edits: wordEdits(referenceWords, hypothesisWords),
      words: referenceWords.length,
      drugs: referenceDrugs.length,
      recalled: drugsRecalled(referenceDrugs, drugsIn(transcript.text)),
      flags: flags.length,
    };
    for (const key of Object.keys(t) as (keyof Tally)[]) totals[mode][key] += t[key];
    console.log(`  ${`${mode} prompt`.padEnd(14)} ${line(t)}`);
    for (const flag of flags) console.log(`    flag: "${flag.said}" → ${flag.suggestion}`);
  }
}
console.log(`\nall ${recordings.length} recordings`);
console.log(`  ${'without prompt'.padEnd(14)} ${line(totals.without)}`);
console.log(`  ${'with prompt'.padEnd(14)} ${line(totals.with)}`);
