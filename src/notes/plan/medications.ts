// Medications: every drug of the lexicon said in the consultation is a mention; a mention becomes
// an item when the words around it say it is prescribed, given now or stopped, and not when they
// say it was taken before or considered and rejected. Each mention reads
//   - its preamble: the words just before it, back over cues and little words ("vou passar
//     também um comprimido de ..."), stopping at any other word or a sentence mark;
//   - its reach: the words after it up to the next mention's preamble, another topic (a return,
//     an exam, a vaccine) or REACH words, across sentences, so a schedule said later ("Dá de manhã
//     e à noite." … "Por quanto tempo?" … "Dez dias.") attaches to the drug being discussed.
// The first dose, interval, duration and route in its reach are its own. A drug said again later
// adds what it was missing to the first item of the same drug and status.

import { type Interval, intervalAt } from '../../language/intervals.ts';
import type { DoseUnit, PlanMedication, Route } from '../store/plan.schemas.ts';
import { CUES, type Cue, GLUE, LONGEST_CUE, PAST_MARKERS, TOPIC_STOPS } from './cues.ts';
import { type Dose, doseAt, durationAt, FORMS, ROUTE_OF_UNIT, ROUTES_SAID } from './doses.ts';
import type { Drug } from './lexicon/lexicon.ts';
import type { PhraseTable, Words } from './tokens.ts';

/** How far a drug's reach goes at most (words). */
export const REACH = 60;
/** How far after the drug a cue still speaks of it ("Dexametasona 0,5 mg/kg IV, já apliquei."). */
const CUE_REACH = 14;
/** How far before the drug its preamble goes at most (words). */
const PREAMBLE = 12;

export interface FoundMedication {
  drug: string;
  generic: string;
  dose_value: number | null;
  dose_unit: DoseUnit | null;
  route: Route | null;
  interval_hours: number | null;
  duration_days: number | null;
  status: PlanMedication['status'];
  /** Indices of the words read. */
  used: number[];
}

interface Mention {
  first: number;
  end: number;
  drug: Drug;
}

interface Reading extends FoundMedication {
  /** A status said, not assumed. */
  cued: boolean;
  /** Dose, interval, duration or route said. */
  hasSchedule: boolean;
}

const CONNECTORS_OF_ALIAS = new Set(['o', 'a', 'que', 'e', 'ou', 'seja', 'do', 'da', 'tipo', 'chamado', 'nome', 'comercial', 'generico', 'marca', 'um', 'uma']);

export function findMentions(words: readonly string[], table: PhraseTable<Drug>): Mention[] {
  const mentions: Mention[] = [];
  for (let at = 0; at < words.length; ) {
    const hit = table.at(words, at);
    if (!hit) {
      at++;
      continue;
    }
    const last = mentions.at(-1);
    const between = last ? words.slice(last.end, at) : [];
    // "Rimadyl, que é o carprofeno": one drug said twice is one mention, reported as first said.
    if (
      last &&
      between.length <= 3 &&
      between.every((word) => CONNECTORS_OF_ALIAS.has(word)) &&
      (last.drug.generic === hit.value.generic || last.drug.name === hit.value.generic || hit.value.name === last.drug.generic)
    ) {
      last.end = hit.end;
    } else mentions.push({ first: at, end: hit.end, drug: hit.value });
    at = hit.end;
  }
  return mentions;
}

/** "há dois meses", "há 10 dias": a time in the past. */
function agoAt(words: readonly string[], at: number): number | null {
  if (words[at] !== 'ha' && words[at] !== 'faz') return null;
  let k = at + 1;
  if (['uns', 'umas', 'mais', 'cerca', 'quase'].includes(words[k] ?? '')) k++;
  if (words[k] === 'de') k++;
  const unitAt = (j: number) => ['dia', 'dias', 'semana', 'semanas', 'mes', 'meses', 'ano', 'anos'].includes(words[j] ?? '');
  if (unitAt(k)) return k + 1; // "há meses"
  if (/^\d/.test(words[k] ?? '') || ['um', 'uma', 'dois', 'duas', 'tres', 'quatro', 'cinco', 'seis', 'sete', 'oito', 'dez', 'quinze', 'vinte', 'trinta'].includes(words[k] ?? '')) {
    if (unitAt(k + 1)) return k + 2;
  }
  return null;
}

/** A dose said right before the drug, tied to it by "de": "meio comprimido de dipirona", "1 ml de Ivomec". */
function doseBefore(words: readonly string[], mention: Mention, limit: number): (Dose & { herd: boolean }) | null {
  const tie = mention.first - 1;
  if (!['de', 'do', 'da'].includes(words[tie] ?? '')) return null;
  for (let at = Math.max(limit, tie - 6); at < tie; at++) {
    const dose = doseAt(words, at);
    if (dose && dose.end === tie) return dose;
  }
  return null;
}

/** Where the preamble of a mention starts: back over cues and little words, not past `limit` or a sentence mark. */
function preambleStart(w: Words, from: number, limit: number): number {
  let k = from;
  while (k > limit && from - k < PREAMBLE) {
    if (w.breakBefore[k]) break;
    const cue = CUES.endingAt(w.words, k, Math.min(LONGEST_CUE, k - limit));
    if (cue) {
      k = cue.first;
      continue;
    }
    const past = PAST_MARKERS.endingAt(w.words, k, Math.min(4, k - limit));
    if (past) {
      k = past.first;
      continue;
    }
    if (GLUE.has(w.words[k - 1]!)) {
      k--;
      continue;
    }
    break;
  }
  // Little words at the start say nothing: the preamble begins at its first cue.
  while (k < from && !CUES.at(w.words, k) && !PAST_MARKERS.at(w.words, k)) k++;
  return k;
}

interface CueHit {
  cue: Cue;
  first: number;
  end: number;
}

function cuesIn(words: readonly string[], from: number, to: number): CueHit[] {
  const hits: CueHit[] = [];
  for (let k = from; k < to; ) {
    const hit = CUES.at(words, k);
    if (hit && hit.end <= to) {
      hits.push({ cue: hit.value, first: k, end: hit.end });
      k = hit.end;
    } else k++;
  }
  return hits;
}

function pastIn(words: readonly string[], from: number, to: number): number[] {
  const used: number[] = [];
  for (let k = from; k < to; k++) {
    const hit = PAST_MARKERS.at(words, k);
    const ago = agoAt(words, k);
    const end = hit?.end ?? ago;
    if (end !== null && end !== undefined && end <= to) {
      for (let j = k; j < end; j++) used.push(j);
      k = end - 1;
    }
  }
  return used;
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
const NOW = new Set(['agora', 'aqui', 'hoje', 'ja']);

/** What one mention says, or null when it is not an item (taken before, rejected, or nothing said of it). */
function readMention(w: Words, mention: Mention, preambleFirst: number, reachEnd: number, preDose: (Dose & { herd: boolean }) | null): Reading | null {
  const { words } = w;
  const used: number[] = range(mention.first, mention.end);
  const before = cuesIn(words, preambleFirst, preDose?.first ?? mention.first);
  const pastBefore = pastIn(words, preambleFirst, mention.first);

  let dose: (Dose & { herd: boolean }) | null = preDose && !preDose.herd ? preDose : null;
  if (preDose) used.push(...range(preDose.first, preDose.end));
  let interval: Interval | null = null;
  let weakInterval: Interval | null = null;
  let duration: { days: number | null; first: number; end: number } | null = null;
  let route: Route | null = null;
  let formRoute: Route | null = null;
  let herd = preDose?.herd ?? false;
  let firstAttribute = Number.POSITIVE_INFINITY;
  const after: CueHit[] = [];
  let pastAfter: number[] = [];
  let breaks = 0;

  for (let k = mention.end; k < reachEnd; ) {
    if (w.breakBefore[k] && k > mention.end) breaks++;
    const near = k - mention.end < CUE_REACH;
    if (near) {
      const cue = CUES.at(words, k);
      if (cue && cue.end <= reachEnd) {
        after.push({ cue: cue.value, first: k, end: cue.end });
        k = cue.end;
        continue;
      }
      // "Amoxicilina ele tomou mês passado": a past time close to the drug, in its sentence, before its schedule.
      if (breaks === 0 && k - mention.end < 8 && firstAttribute === Number.POSITIVE_INFINITY) {
        const past = pastIn(words, k, Math.min(reachEnd, k + 4));
        if (past.length > 0 && past[0] === k) {
          pastAfter = past;
          k = past.at(-1)! + 1;
          continue;
        }
      }
    }
    const foundDose = dose === null ? doseAt(words, k) : null;
    if (foundDose) {
      if (foundDose.herd) herd = true;
      else dose = foundDose;
      used.push(...range(foundDose.first, foundDose.end));
      firstAttribute = Math.min(firstAttribute, k);
      k = foundDose.end;
      continue;
    }
    const foundInterval = interval === null ? intervalAt(words, k) : null;
    if (foundInterval && !(foundInterval.weak && weakInterval)) {
      if (foundInterval.weak) weakInterval = foundInterval;
      else {
        interval = foundInterval;
        used.push(...range(foundInterval.first, foundInterval.end));
      }
      firstAttribute = Math.min(firstAttribute, k);
      k = foundInterval.end;
      continue;
    }
    const foundDuration = duration === null ? durationAt(words, k) : null;
    if (foundDuration) {
      duration = foundDuration;
      used.push(...range(foundDuration.first, foundDuration.end));
      firstAttribute = Math.min(firstAttribute, k);
      k = foundDuration.end;
      continue;
    }
    const saidRoute = route === null ? ROUTES_SAID.at(words, k) : null;
    if (saidRoute) {
      route = saidRoute.value;
      used.push(...range(k, saidRoute.end));
      firstAttribute = Math.min(firstAttribute, k);
      k = saidRoute.end;
      continue;
    }
    const form = formRoute === null ? FORMS.at(words, k) : null;
    if (form) {
      formRoute = form.value;
      used.push(...range(k, form.end));
      k = form.end;
      continue;
    }
    k++;
  }
  // A form said in the preamble ("um colírio de ...", "a pomada de ...").
  for (let k = preambleFirst; k < mention.first && formRoute === null; k++) {
    const form = FORMS.at(words, k);
    if (form) formRoute = form.value;
  }

  const cues = [...before, ...after];
  const has = (cue: Cue) => cues.some((hit) => hit.cue === cue);
  for (const hit of cues) used.push(...range(hit.first, hit.end));
  if (interval === null && weakInterval !== null) {
    interval = weakInterval;
    used.push(...range(weakInterval.first, weakInterval.end));
  }
  const schedule = interval !== null || duration !== null;
  const hasSchedule = dose !== null || schedule || route !== null;
  const past = pastBefore.length > 0 || pastAfter.length > 0;

  let status: PlanMedication['status'];
  if (has('suspend')) status = 'suspended';
  else if (has('reject')) return null;
  else if (has('administer')) status = 'administered';
  else if (has('history') && !has('prescribe')) return null;
  else if (past && !has('prescribe')) return null;
  else if (has('administer_weak')) {
    const now = cues.some((hit) => hit.cue === 'administer_weak' && (NOW.has(words[hit.end] ?? '') || NOW.has(words[hit.first - 1] ?? '')));
    status = schedule && !now ? 'prescribed' : 'administered';
  } else if (has('prescribe') || hasSchedule) status = 'prescribed';
  else if (herd) return null;
  else status = 'prescribed';
  const cued = cues.some((hit) => hit.cue !== 'history');

  const unitRoute = dose ? ROUTE_OF_UNIT[dose.unit] ?? null : null;
  return {
    drug: mention.drug.name,
    generic: mention.drug.generic,
    dose_value: dose?.value ?? null,
    dose_unit: dose?.unit ?? null,
    route: route ?? formRoute ?? unitRoute ?? mention.drug.route,
    interval_hours: status === 'administered' && interval?.hours === 24 && interval.weak ? null : interval?.hours ?? null,
    duration_days: duration?.days ?? null,
    status,
    used,
    cued,
    hasSchedule,
  };
}

/**
 * The medications of the words. `stops` are word indices where another topic begins (an exam, a
 * vaccine, a return): a drug's reach ends there.
 */
export function findMedications(w: Words, table: PhraseTable<Drug>, stops: ReadonlySet<number>): FoundMedication[] {
  const { words } = w;
  const mentions = findMentions(words, table);
  // Where each mention's preamble begins, and its dose said before it.
  const preDoses = mentions.map((mention, i) => doseBefore(words, mention, i > 0 ? mentions[i - 1]!.end : 0));
  const preambles = mentions.map((mention, i) => preambleStart(w, preDoses[i]?.first ?? mention.first, i > 0 ? mentions[i - 1]!.end : 0));

  const readings: Reading[] = [];
  for (const [i, mention] of mentions.entries()) {
    let reachEnd = Math.min(words.length, mention.end + REACH, i + 1 < mentions.length ? preambles[i + 1]! : words.length);
    for (let k = mention.end; k < reachEnd; k++) {
      if (stops.has(k) || TOPIC_STOPS.has(words[k]!)) {
        reachEnd = k;
        break;
      }
    }
    const reading = readMention(w, mention, preambles[i]!, reachEnd, preDoses[i]!);
    if (reading) readings.push(reading);
  }
  return mergeRepeats(readings);
}

const sameDrug = (a: Reading, b: Reading) =>
  a.drug === b.drug || a.generic === b.generic || a.drug.split(' ')[0] === b.drug || b.drug.split(' ')[0] === a.drug;

/** A drug said again adds what the first item of it lacks; said again with nothing, it adds nothing. */
function mergeRepeats(readings: Reading[]): FoundMedication[] {
  const kept: Reading[] = [];
  for (const reading of readings) {
    const earlier = kept.find((item) => sameDrug(item, reading) && (item.status === reading.status || !reading.cued));
    if (earlier) {
      let added = false;
      for (const field of ['dose_value', 'route', 'interval_hours', 'duration_days'] as const) {
        if (earlier[field] === null && reading[field] !== null) {
          if (field === 'dose_value') {
            earlier.dose_value = reading.dose_value;
            earlier.dose_unit = reading.dose_unit;
          } else (earlier[field] as unknown) = reading[field];
          added = true;
        }
      }
      if (added) earlier.used.push(...reading.used);
      continue;
    }
    // Only a name, no cue, nothing of a schedule: a drug talked about, not an item.
    if (!reading.cued && !reading.hasSchedule) continue;
    kept.push(reading);
  }
  return kept.map(({ cued: _cued, hasSchedule: _hasSchedule, ...medication }) => medication);
}
