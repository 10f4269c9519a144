import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExamSchema, FollowUpSchema, MedicationSchema, VaccineSchema } from '../../src/notes/store/plan.schemas.ts';
import { SPECIES } from '../../src/notes/store/vitals.schemas.ts';

// The plan corpus (test/fixtures/plan-corpus/README.md) checked against the Plan contract, without
// the extractor: every gold item parses with the contract's schemas (less id, text and evidence, plus
// the quote), every quote is said verbatim in the transcript, every number of an item is in its quote
// (as digits or as pt-BR words, and for intervals and days in the forms the labelling rules convert:
// "duas semanas" → 14, "BID" → 12), totals and due dates follow from the weight and the visit date.

const root = path.join(import.meta.dirname, '../fixtures/plan-corpus');
const SPLITS = ['tune', 'tune2', 'heldout', 'heldout2'] as const;
type Split = (typeof SPLITS)[number];

const withQuote = { quote: z.string().min(1) };
const omitted = { id: true, text: true, evidence: true } as const;
const CaseSchema = z.strictObject({
  id: z.string().regex(/^(tune2?|heldout2?)-\d{2,3}$/),
  style: z.enum(['headings', 'natural', 'conversation']),
  species: z.enum(SPECIES),
  visit_date: z.iso.date(),
  weight_kg: z.number().positive().nullable(),
  segments: z.array(z.strictObject({ start: z.number().nonnegative(), end: z.number().positive(), text: z.string().min(1) })).min(1),
  plan: z.strictObject({
    medications: z.array(MedicationSchema.omit(omitted).extend(withQuote).strict()),
    exams: z.array(ExamSchema.omit(omitted).extend(withQuote).strict()),
    vaccines: z.array(VaccineSchema.omit(omitted).extend(withQuote).strict()),
    follow_ups: z.array(FollowUpSchema.omit(omitted).extend(withQuote).strict()),
  }),
  negatives: z.array(z.string().min(1)),
});
type Case = z.infer<typeof CaseSchema>;

interface Loaded {
  split: Split;
  file: string;
  raw: unknown;
}

// tune2 and heldout2 (written later, by other writers) are checked when they are there.
const PRESENT = SPLITS.filter((split) => existsSync(path.join(root, split)));
const loaded: Loaded[] = PRESENT.flatMap((split) =>
  readdirSync(path.join(root, split))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ split, file, raw: JSON.parse(readFileSync(path.join(root, split, file), 'utf8')) })),
);
const cases = (split: Split): Case[] => loaded.filter((item) => item.split === split).map((item) => CaseSchema.parse(item.raw));
const transcript = (item: Case) => item.segments.map((segment) => segment.text).join(' ');

// ---- pt-BR numbers in a quote ----

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

// biome-ignore format: a table
const WORDS: Record<string, number> = {
  zero: 0, um: 1, uma: 1, dois: 2, duas: 2, tres: 3, quatro: 4, cinco: 5, seis: 6, sete: 7, oito: 8, nove: 9,
  dez: 10, onze: 11, doze: 12, treze: 13, catorze: 14, quatorze: 14, quinze: 15, dezesseis: 16, dezessete: 17,
  dezoito: 18, dezenove: 19, vinte: 20, trinta: 30, quarenta: 40, cinquenta: 50, sessenta: 60, setenta: 70,
  oitenta: 80, noventa: 90, cem: 100, cento: 100, duzentos: 200, duzentas: 200, trezentos: 300, trezentas: 300,
  quatrocentos: 400, quinhentos: 500, seiscentos: 600, setecentos: 700, oitocentos: 800, novecentos: 900,
};

/** Every number a quote says: digits ("0,25", "1.200", "40 mil") and words ("dois vírgula dois", "um e meio", "meia"). */
function numbersIn(text: string): Set<number> {
  const folded = fold(text);
  const found = new Set<number>();
  for (const match of folded.matchAll(/\d+(?:[.,]\d+)*/g)) {
    const digits = match[0];
    for (const part of digits.split(/[.,]/)) found.add(Number(part));
    if (/^\d+[.,]\d+$/.test(digits)) found.add(Number(digits.replace(',', '.')));
    if (/^\d{1,3}(?:\.\d{3})+$/.test(digits)) found.add(Number(digits.replaceAll('.', '')));
    if (/^\s*mil\b/.test(folded.slice((match.index ?? 0) + digits.length))) found.add(Number(digits.replace(',', '.')) * 1000);
  }
  const tokens = folded.match(/[a-z]+|\d+(?:[.,]\d+)?/g) ?? [];
  const token = (at: number) => tokens[at] ?? '';
  const isNumberWord = (at: number) => Object.hasOwn(WORDS, token(at));
  const phrase = (from: number): [number | null, number] => {
    let total = 0;
    let current = 0;
    let any = false;
    let at = from;
    while (at < tokens.length) {
      const word = token(at);
      if (isNumberWord(at)) {
        current += WORDS[word] ?? 0;
        any = true;
        at++;
        if (token(at) === 'e' && isNumberWord(at + 1)) {
          at++;
          continue;
        }
        if (token(at) === 'mil') continue;
        break;
      }
      if (word === 'mil' && any) {
        total += (current || 1) * 1000;
        current = 0;
        at++;
        if (token(at) === 'e' && isNumberWord(at + 1)) at++;
        continue;
      }
      break;
    }
    return [any ? total + current : null, at];
  };
  for (let at = 0; at < tokens.length; ) {
    let [value, next] = phrase(at);
    if (value === null) {
      if (token(at) === 'meio' || token(at) === 'meia') found.add(0.5);
      if (!/^\d/.test(token(at))) {
        at++;
        continue;
      }
      value = Number(token(at).replace(',', '.'));
      next = at + 1;
    }
    found.add(value);
    if ((token(next) === 'virgula' || token(next) === 'ponto') && next + 1 < tokens.length) {
      let after = next + 1;
      let decimals = '';
      while (token(after) === 'zero') {
        decimals += '0';
        after++;
      }
      const [fraction] = phrase(after);
      if (fraction !== null) decimals += String(fraction);
      else if (/^\d+$/.test(token(after))) decimals += token(after);
      if (decimals) found.add(Number(`${Math.trunc(value)}.${decimals}`));
    }
    for (let k = next; k < Math.min(next + 4, tokens.length - 1); k++) {
      if (token(k) === 'e' && (token(k + 1) === 'meio' || token(k + 1) === 'meia')) {
        found.add(value + 0.5);
        break;
      }
    }
    at = Math.max(next, at + 1);
  }
  if (/\bum quarto\b/.test(folded)) found.add(0.25);
  return found;
}

const has = (text: string, ...words: string[]) => words.some((word) => new RegExp(`\\b${word}\\b`).test(text));

/** The day counts a quote can mean: "10 dias", "duas semanas" (14), "três meses" (90), "um ano", "48 horas" (2), "amanhã". */
function daysIn(quote: string): Set<number> {
  const folded = fold(quote);
  const days = new Set<number>();
  for (const n of numbersIn(quote)) for (const value of [n, n * 7, n * 15, n * 30, n * 365, n / 24]) days.add(value);
  if (has(folded, 'amanha')) days.add(1);
  if (folded.includes('depois de amanha')) days.add(2);
  if (has(folded, 'semana')) days.add(7);
  if (has(folded, 'quinzena')) days.add(15);
  if (has(folded, 'mes', 'meses')) days.add(30);
  if (has(folded, 'ano')) days.add(365);
  return days;
}

/** The intervals in hours a quote can mean: "a cada 8 horas", "2x ao dia" (12), "BID", "de manhã e à noite", "por mês" (720). */
function hoursIn(quote: string): Set<number> {
  const folded = fold(quote);
  const hours = new Set<number>();
  for (const n of numbersIn(quote)) {
    for (const value of [n, n * 24, n * 168, n * 720]) hours.add(value);
    if (n) for (const value of [24 / n, 168 / n]) hours.add(value);
  }
  const keywords: [RegExp, number[]][] = [
    [/\bsid\b|diariamente|\btodo dia\b|todos os dias/, [24]],
    [/\bbid\b|manha e (a )?noite|manha e de noite/, [12]],
    [/\btid\b/, [8]],
    [/\bqid\b/, [6]],
    [/semanal/, [168]],
    [/mensal|\b(todo|cada|por) mes\b/, [720]],
    [/dia sim,? dia nao/, [48]],
  ];
  for (const [pattern, values] of keywords) if (pattern.test(folded)) for (const value of values) hours.add(value);
  return hours;
}

const PER_KG: Record<string, string> = { 'mg/kg': 'mg', 'ml/kg': 'ml', 'mcg/kg': 'mcg', 'UI/kg': 'UI' };
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('the plan corpus', () => {
  it('holds the files the issue asks for: 40+ tune consultations with 120+ medications, 20+ held out with 60+', () => {
    const tune = cases('tune');
    const heldOut = cases('heldout');
    const medications = (list: Case[]) => list.reduce((sum, item) => sum + item.plan.medications.length, 0);
    expect(tune.length).toBeGreaterThanOrEqual(40);
    expect(medications(tune)).toBeGreaterThanOrEqual(120);
    expect(heldOut.length).toBeGreaterThanOrEqual(20);
    expect(medications(heldOut)).toBeGreaterThanOrEqual(60);
    for (const list of [tune, heldOut, cases('heldout2')]) {
      expect(new Set(list.map((item) => item.style))).toEqual(new Set(['headings', 'natural', 'conversation']));
      expect(new Set(list.map((item) => item.species)).size).toBeGreaterThanOrEqual(7);
    }
  });

  it('holds a second tuning set, tune2: 25+ consultations with 75+ medications, 25+ exams, 10+ vaccines, 25+ follow-ups', () => {
    const tune2 = cases('tune2');
    const count = (key: keyof Case['plan']) => tune2.reduce((sum, item) => sum + item.plan[key].length, 0);
    expect(tune2.length).toBeGreaterThanOrEqual(25);
    expect(count('medications')).toBeGreaterThanOrEqual(75);
    expect(count('exams')).toBeGreaterThanOrEqual(25);
    expect(count('vaccines')).toBeGreaterThanOrEqual(10);
    expect(count('follow_ups')).toBeGreaterThanOrEqual(25);
    expect(new Set(tune2.map((item) => item.style))).toEqual(new Set(['headings', 'natural', 'conversation']));
    expect(new Set(tune2.map((item) => item.species)).size).toBeGreaterThanOrEqual(7);
  });

  it('holds the second held-out set: 25+ consultations with 75+ medications, 25+ exams, 10+ vaccines, 25+ follow-ups', () => {
    const heldOut2 = cases('heldout2');
    const count = (list: keyof Case['plan']) => heldOut2.reduce((sum, item) => sum + item.plan[list].length, 0);
    expect(heldOut2.length).toBeGreaterThanOrEqual(25);
    expect(count('medications')).toBeGreaterThanOrEqual(75);
    expect(count('exams')).toBeGreaterThanOrEqual(25);
    expect(count('vaccines')).toBeGreaterThanOrEqual(10);
    expect(count('follow_ups')).toBeGreaterThanOrEqual(25);
  });

  it('names each file after its id, and no id twice', () => {
    const ids = loaded.map(({ split, file, raw }) => {
      const id = (raw as { id: string }).id;
      expect(`${id}.json`).toBe(file);
      expect(id.startsWith(`${split}-`)).toBe(true);
      return id;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe.each(PRESENT)('%s', (split) => {
    it.each(loaded.filter((item) => item.split === split).map((item) => [item.file, item.raw] as const))('%s', (_file, raw) => {
      const item = CaseSchema.parse(raw);
      const text = transcript(item);
      const where = (what: string) => `${item.id}: ${what}`;

      let previousEnd = 0;
      for (const segment of item.segments) {
        expect(segment.start, where(`segment "${segment.text}" starts before the last one ended`)).toBeGreaterThanOrEqual(previousEnd);
        expect(segment.end, where(`segment "${segment.text}"`)).toBeGreaterThan(segment.start);
        expect(segment.end - segment.start, where(`segment "${segment.text}" is too long`)).toBeLessThanOrEqual(16);
        expect(segment.text, where('segment text is trimmed')).toBe(segment.text.trim());
        previousEnd = segment.end;
      }

      for (const medication of item.plan.medications) {
        const { quote } = medication;
        const what = where(`${medication.drug} "${quote}"`);
        expect(text.includes(quote), `${what}: quote not in the transcript`).toBe(true);
        expect(medication.drug, what).toBe(fold(medication.drug).trim());
        expect(medication.dose_value === null, `${what}: dose value and unit go together`).toBe(medication.dose_unit === null);
        if (medication.dose_value !== null) expect(numbersIn(quote).has(medication.dose_value), `${what}: dose`).toBe(true);
        if (medication.interval_hours !== null) expect(hoursIn(quote).has(medication.interval_hours), `${what}: interval`).toBe(true);
        if (medication.duration_days !== null) expect(daysIn(quote).has(medication.duration_days), `${what}: duration`).toBe(true);
        const perKg = medication.dose_unit !== null && medication.dose_unit in PER_KG;
        if (perKg && item.weight_kg !== null && medication.dose_value !== null) {
          expect(medication.computed_total?.unit, what).toBe(PER_KG[medication.dose_unit as string]);
          // dose × weight rounded half up to 2 decimals (0.05 × 5.1 = 0.255 → 0.26)
          expect(
            Math.abs((medication.computed_total?.value ?? Number.NaN) - medication.dose_value * item.weight_kg),
            what,
          ).toBeLessThanOrEqual(0.005 + 1e-9);
        } else {
          expect(medication.computed_total, `${what}: a total only for a per-kg dose with a weight`).toBeNull();
        }
      }
      for (const exam of item.plan.exams) expect(text.includes(exam.quote), where(`exam ${exam.code} "${exam.quote}"`)).toBe(true);
      for (const vaccine of item.plan.vaccines) {
        expect(text.includes(vaccine.quote), where(`vaccine ${vaccine.code} "${vaccine.quote}"`)).toBe(true);
      }
      for (const followUp of item.plan.follow_ups) {
        const what = where(`follow-up ${followUp.kind} "${followUp.quote}"`);
        expect(text.includes(followUp.quote), `${what}: quote not in the transcript`).toBe(true);
        if (followUp.due_in_days === null) {
          expect(followUp.due_date, what).toBeNull();
        } else {
          expect(daysIn(followUp.quote).has(followUp.due_in_days), `${what}: due_in_days`).toBe(true);
          expect(followUp.due_date, what).toBe(addDays(item.visit_date, followUp.due_in_days));
        }
      }
      for (const negative of item.negatives) {
        const [words = '', why] = negative.split(' — ');
        expect(why, where(`negative "${negative}" says why after " — "`)).toBeTruthy();
        expect(text.includes(words), where(`negative "${words}" is not in the transcript`)).toBe(true);
      }
      expect(item.negatives.length, where('every consultation records its traps')).toBeGreaterThanOrEqual(3);
    });
  });
});

describe('the number reader the checks rely on', () => {
  it.each([
    ['dois vírgula dois miligramas por quilo', 2.2],
    ['0,25 mg/kg', 0.25],
    ['meio comprimido', 0.5],
    ['um comprimido e meio', 1.5],
    ['dois e meio miligramas', 2.5],
    ['zero vírgula zero cinco', 0.05],
    ['quarenta mil UI por quilo', 40000],
    ['vinte e dois mil UI', 22000],
    ['cento e vinte ml', 120],
    ['a cinquenta por cento, sessenta ml', 60],
  ])('%s has %d', (text, value) => {
    expect(numbersIn(text).has(value)).toBe(true);
  });

  it('reads intervals and days in the forms the rules convert', () => {
    expect(hoursIn('duas vezes ao dia').has(12)).toBe(true);
    expect(hoursIn('BID').has(12)).toBe(true);
    expect(hoursIn('de 8/8h').has(8)).toBe(true);
    expect(hoursIn('um comprimido por mês').has(720)).toBe(true);
    expect(daysIn('por duas semanas').has(14)).toBe(true);
    expect(daysIn('em 48 horas').has(2)).toBe(true);
    expect(daysIn('no mês que vem').has(30)).toBe(true);
    expect(daysIn('por três meses').has(90)).toBe(true);
    expect(daysIn('por dez dias').has(12)).toBe(false);
  });
});
