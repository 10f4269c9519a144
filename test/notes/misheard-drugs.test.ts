import { describe, expect, it } from 'vitest';
import { editDistance } from '../../src/language/edit-distance.ts';
import { phoneticKey } from '../../src/language/phonetic-key.ts';
import { planOfText } from '../../src/notes/plan/extract-plan.ts';
import { DRUG_LOOKALIKES } from '../../src/notes/plan/lexicon/drug-lookalikes.ts';
import { builtInDrugs } from '../../src/notes/plan/lexicon/lexicon.ts';
import { LIKELY_DRUGS } from '../../src/notes/plan/lexicon/likely-drugs.ts';
import { misheardDrugFlags } from '../../src/notes/plan/misheard-flags.ts';

// The check of drug names after transcription (lexicon/misheard-drugs.ts): what is flagged
// `possible_drug_misrecognition` with which suggestion, and what is left alone.

const flagsOf = (text: string, clinicDrugNames: string[] = []) =>
  misheardDrugFlags({ text, segments: [] }, clinicDrugNames).map((flag) => [flag.said, flag.suggestion]);

describe('possible_drug_misrecognition', () => {
  it.each([
    // misspellings a model writes by ear
    ['vou passar carpofeno por cinco dias', 'carpofeno', 'carprofeno'],
    ['meloxican zero vírgula um', 'meloxican', 'meloxicam'],
    ['prednizolona um comprimido', 'prednizolona', 'prednisolona'],
    ['sefalexina de doze em doze horas', 'sefalexina', 'cefalexina'],
    ['itraconasol por trinta dias', 'itraconasol', 'itraconazol'],
    ['tramadoll se tiver dor', 'tramadoll', 'tramadol'],
    ['omeprasol em jejum', 'omeprasol', 'omeprazol'],
    ['metronidasol por sete dias', 'metronidasol', 'metronidazol'],
    ['gabapentna à noite', 'gabapentna', 'gabapentina'],
    // accents a model adds: read without them, quoted with them
    ['sefalexína de doze em doze horas', 'sefalexína', 'cefalexina'],
    ['Prednizolôna um comprimido', 'Prednizolôna', 'prednisolona'],
    // names written in two
    ['amoxi cilina de doze em doze', 'amoxi cilina', 'amoxicilina'],
    ['maro pitant uma vez ao dia', 'maro pitant', 'maropitant'],
    ['trama dol de oito em oito', 'trama dol', 'tramadol'],
    ['meta dona antes do procedimento', 'meta dona', 'metadona'],
    ['leve tiracetam duas vezes', 'leve tiracetam', 'levetiracetam'],
  ])('flags "%s": %s → %s', (text, said, suggestion) => {
    expect(flagsOf(text)).toEqual([[said, suggestion]]);
  });

  it.each([
    ['dipirona se tiver dor'],
    // a drug with an accent is the drug
    ['dipiróna se tiver febre, carprofêno depois'],
    ['cefalexina e cefalexin são a mesma'],
    ['meloxicam, carprofeno e amoxicilina com clavulanato'],
    // known drugs that are also ordinary words
    ['a insulina e a vitamina do complexo b'],
    ['o colosso no pelo'],
    // ordinary words that look like a drug
    ['ele fica acatando o que a gente fala, capotou do sofá'],
    ['tem muito cerume no ouvido, cerumen escuro'],
    ['veio com osso preso, está com o torax limpo'],
    ['o tutor relata vômito, diarreia, febre, prostração e tremores há dois dias'],
    ['temperatura trinta e nove e oito frequência cardíaca cento e oitenta'],
    // a drug and the word after it is no split
    ['meloxicam se tiver dor, ceftiofur o dia todo'],
  ])('leaves "%s" alone', (text) => {
    expect(flagsOf(text)).toEqual([]);
  });

  it("leaves the clinic's own names alone", () => {
    expect(flagsOf('passar carprofem')).toEqual([['carprofem', 'carprofeno']]);
    expect(flagsOf('passar carprofem', ['Carprofem'])).toEqual([]);
  });

  it('never changes the text, quotes the words around, and says when with timed segments', () => {
    const segments = [
      { start: 0, end: 4, text: 'temperatura trinta e nove' },
      { start: 4, end: 9, text: 'vou passar carpofeno dois virgula dois miligramas por quilo' },
    ];
    const [flag, ...more] = misheardDrugFlags({ text: segments.map((s) => s.text).join(' '), segments }, []);
    expect(more).toEqual([]);
    expect(flag).toEqual({
      section: null,
      sentence: 'trinta e nove vou passar carpofeno dois virgula dois miligramas por',
      reason: 'possible_drug_misrecognition',
      token: 'carpofeno',
      said: 'carpofeno',
      suggestion: 'carprofeno',
      evidence: { start: 4, end: 9 },
    });
  });

  it('reads the misheard name in the plan as the drug it resembles, under the name as said', () => {
    const plan = planOfText('vou passar carpofeno dois virgula dois miligramas por quilo de doze em doze horas por cinco dias', {
      visitDate: '2026-12-07',
      weightKg: 10,
      clinicDrugNames: [],
    });
    expect(plan.medications).toMatchObject([
      {
        drug: 'carpofeno',
        dose_value: 2.2,
        dose_unit: 'mg/kg',
        interval_hours: 12,
        duration_days: 5,
        computed_total: { value: 22, unit: 'mg' },
      },
    ]);
  });
});

describe('the phonetic key and the edit distance', () => {
  it.each([
    ['meloxicam', 'meloxican'],
    ['cefalexina', 'sefalexina'],
    ['prednisona', 'prednizona'],
    ['carprofeno', 'carprofenu'],
    ['hidroxizina', 'idroxizina'],
    ['amoxicilina', 'amoxicilinna'],
    ['quetamina', 'ketamina'],
    ['ação', 'assao'],
  ])('%s sounds as %s', (a, b) => {
    expect(phoneticKey(a)).toBe(phoneticKey(b));
  });

  it.each([
    ['carprofeno', 'dipirona'],
    ['cetamina', 'vitamina'],
    ['gato', 'gado'],
  ])('%s does not sound as %s', (a, b) => {
    expect(phoneticKey(a)).not.toBe(phoneticKey(b));
  });

  it('counts insertions, deletions, substitutions and swaps, and stops past its bound', () => {
    expect(editDistance('carprofeno', 'carpofeno')).toBe(1);
    expect(editDistance('carprofeno', 'carporfeno')).toBe(1);
    expect(editDistance('meloxicam', 'meloxican')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('carprofeno', 'dipirona', 2)).toBe(3);
    // Bounded work on hostile input: a long word against a short bound returns at once.
    expect(editDistance('a'.repeat(100_000), 'b'.repeat(100_000), 2)).toBe(3);
  });
});

describe('the lists the check reads', () => {
  const lexicon = new Set(builtInDrugs().flatMap(({ phrases }) => phrases));
  it('primes the transcription with lexicon names only', () => {
    expect(LIKELY_DRUGS.filter((name) => !lexicon.has(name))).toEqual([]);
  });
  it('keeps lookalikes that are no drug names', () => {
    expect(DRUG_LOOKALIKES.length).toBeGreaterThan(50);
    expect(DRUG_LOOKALIKES.filter((word) => lexicon.has(word))).toEqual([]);
  });
});
