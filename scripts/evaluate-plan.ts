// `npm run eval:plan`: precision and recall of the plan extraction over the corpus
// (test/fixtures/plan-corpus/{tune,tune2,heldout,heldout2}), each split apart: per list (medications, exams,
// vaccines, follow-ups), per medication field, medications with every field right, and the
// extraction's time per consultation. MISSES=1 lists what each consultation missed, added or got
// wrong, on the tuning splits only (never on a held-out one); SPLIT=tune (tune2, heldout, heldout2)
// scores one split only. Matching rules: test/notes/plan-corpus-score.ts.
// Each split is also scored as a small Whisper would write it (the noise model of
// test/noise/spoken-style.ts), beside the clean figures, with the drug check's catch rate on
// misheard names and its false flags; NOISE=0 leaves that out.

import { performance } from 'node:perf_hooks';
import { fold } from '../src/language/fold.ts';
import { planOfTranscript } from '../src/notes/plan/extract-plan.ts';
import { misheardDrugFlags } from '../src/notes/plan/misheard-flags.ts';
import { type Misspelled, noisySentence, random, seedOf, timedSegmentsOf } from '../test/noise/spoken-style.ts';
import {
  type CorpusCase,
  contextOf,
  HELD_OUT,
  loadPlanCorpus,
  MEDICATION_FIELDS,
  precision,
  recall,
  type Score,
  SPLITS,
  type Split,
  scoreSplit,
  transcriptOf,
} from '../test/notes/plan-corpus-score.ts';

/** Each consultation is extracted this many times: its fastest run is its time, so a machine busy with other work does not count its waits. */
const RUNS = 5;
const percent = (value: number) => `${(value * 100).toFixed(1)}%`.padStart(7);
const row = (name: string, score: Score) =>
  `${name.padEnd(30)} ${String(score.gold).padStart(5)} ${String(score.found).padStart(6)} ${String(score.truePositives).padStart(6)}   ${percent(precision(score))} ${percent(recall(score))}`;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The consultation as a small Whisper writes it (test/noise/spoken-style.ts), segments cut anywhere over its time. */
function spokenStyle(item: CorpusCase, misspellDrugs = 0, misspelled: Misspelled[] = []): CorpusCase {
  const rng = random(seedOf(item.id));
  const text = item.segments.map((segment) => noisySentence(segment.text, rng, { seed: 0, misspellDrugs }, misspelled)).join(' ');
  const start = item.segments[0]?.start ?? 0;
  const end = item.segments.at(-1)?.end ?? 0;
  return { ...item, segments: timedSegmentsOf(text, start, end, rng) };
}

/** The drug check on spoken-style text: misheard names flagged with the right suggestion, and flags where nothing was misheard. */
function reportFlags(cases: CorpusCase[]) {
  let falseFlags = 0;
  for (const item of cases) falseFlags += misheardDrugFlags(transcriptOf(spokenStyle(item)), []).length;
  let misheard = 0;
  let caught = 0;
  let otherFlags = 0;
  for (const item of cases) {
    const misspelled: Misspelled[] = [];
    const flags = misheardDrugFlags(transcriptOf(spokenStyle(item, 0.5, misspelled)), []);
    const key = (text: string) => fold(text).replace(/\s+/g, ' ');
    for (const { drug, said } of misspelled) {
      misheard++;
      const hit = flags.findIndex((flag) => key(flag.said!) === key(said) && flag.suggestion === drug);
      if (hit >= 0) {
        caught++;
        flags.splice(hit, 1);
      }
    }
    otherFlags += flags.filter((flag) => !misspelled.some(({ said }) => key(said).includes(key(flag.said!)))).length;
  }
  const per20 = (n: number) => ((20 * n) / cases.length).toFixed(2);
  console.log(
    `drug check, spoken-style: misheard names flagged with the right suggestion ${caught}/${misheard} (${((100 * caught) / Math.max(1, misheard)).toFixed(1)} %); ` +
      `false flags ${falseFlags} in ${cases.length} consultations without misheard names (${per20(falseFlags)} per 20), ${otherFlags} beside misheard ones`,
  );
}

function report(name: string, cases: CorpusCase[]) {
  if (cases.length === 0) {
    console.log(`\n${name}: no consultations`);
    return;
  }
  if (process.env.NOISE !== '0') reportSpoken(name, cases);
  const firstRuns: number[] = [];
  const fastest: number[] = [];
  const score = scoreSplit(cases, (item) => {
    let plan = planOfTranscript(transcriptOf(item), contextOf(item));
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      plan = planOfTranscript(transcriptOf(item), contextOf(item));
      const took = performance.now() - started;
      if (run === 0) firstRuns.push(took);
      best = Math.min(best, took);
    }
    fastest.push(best);
    return plan;
  });
  const medications = cases.reduce((sum, item) => sum + item.plan.medications.length, 0);
  console.log(`\n${name}: ${cases.length} consultations, ${medications} medications`);
  console.log(`${''.padEnd(30)} ${'gold'.padStart(5)} ${'found'.padStart(6)} ${'right'.padStart(6)}   precision  recall`);
  console.log(row('medications (drug + status)', score.medications));
  console.log(row('medications, every field right', score.everyField));
  for (const field of MEDICATION_FIELDS) console.log(row(`  field ${field}`, score.fields[field]));
  console.log(row('exams', score.exams));
  console.log(row('vaccines', score.vaccines));
  console.log(row('follow-ups', score.followUps));
  const line = (name: string, times: number[]) => {
    const sorted = [...times].sort((a, b) => a - b);
    return `${name}: median ${quantile(sorted, 0.5).toFixed(2)} ms, p95 ${quantile(sorted, 0.95).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`;
  };
  console.log(line('extraction time per consultation (its fastest of 5 runs)', fastest));
  console.log(line('extraction time per consultation (one run, as measured)', firstRuns));
  if (process.env.MISSES === '1' && HELD_OUT.includes(name as Split)) console.log('(misses are not listed for a held-out split)');
  else if (process.env.MISSES === '1') {
    for (const miss of score.misses) {
      console.log(`${miss.id}:`);
      for (const line of miss.lines) console.log(line);
    }
  }
}

/** Clean and spoken-style figures side by side. */
function reportSpoken(name: string, cases: CorpusCase[]) {
  const plan = (item: CorpusCase) => planOfTranscript(transcriptOf(item), contextOf(item));
  const clean = scoreSplit(cases, plan);
  const spoken = scoreSplit(
    cases.map((item) => spokenStyle(item)),
    plan,
  );
  const pair = (label: string, a: Score, b: Score) =>
    console.log(`${label.padEnd(30)} ${percent(precision(a))} ${percent(recall(a))} |  ${percent(precision(b))} ${percent(recall(b))}`);
  console.log(`\n${name}: clean | spoken-style (noise model)`);
  console.log(`${''.padEnd(30)} precision  recall |  precision  recall`);
  pair('medications (drug + status)', clean.medications, spoken.medications);
  pair('medications, every field right', clean.everyField, spoken.everyField);
  for (const field of MEDICATION_FIELDS) pair(`  field ${field}`, clean.fields[field], spoken.fields[field]);
  pair('exams', clean.exams, spoken.exams);
  pair('vaccines', clean.vaccines, spoken.vaccines);
  pair('follow-ups', clean.followUps, spoken.followUps);
  reportFlags(cases);
  if (process.env.MISSES === '1')
    for (const miss of spoken.misses) {
      console.log(`spoken ${miss.id}:`);
      for (const line of miss.lines) console.log(line);
    }
}

// Built once (the lexicon's table), so the first consultation's time is not the build's.
planOfTranscript({ text: 'meloxicam', segments: [] }, { visitDate: '2026-01-01', weightKg: null, clinicDrugNames: [] });

const splits: Split[] = process.env.SPLIT ? [process.env.SPLIT as Split] : [...SPLITS];
for (const split of splits) report(split, loadPlanCorpus(split));
