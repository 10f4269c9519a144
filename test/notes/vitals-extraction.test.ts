import { describe, expect, it } from 'vitest';
import { groundDraftedVitals } from '../../src/notes/processing/drafted-vitals.ts';
import type { Vital } from '../../src/notes/store/vitals.schemas.ts';
import { flagVitals, vitalsOfText, vitalsOfTranscript } from '../../src/notes/vitals/note-vitals.ts';
import { DEFAULT_RANGES, effectiveRanges, flagAgainst, patchOverrides } from '../../src/notes/vitals/reference-ranges.ts';
import { vitalsAfterEdit } from '../../src/notes/vitals/section-edit.ts';
import { detectSpecies } from '../../src/notes/vitals/species.ts';
import { compact, loadVitalsCorpus, precision, recall, scoreCases, total } from './vitals-corpus/corpus.ts';

// The extraction without a database: the corpus case by case, the number forms, comparators and
// negatives one by one, the species, the ranges and flags, the drafted-vital check, the edit diff.

const found = (text: string) => vitalsOfText(text).map(compact);
const tuning = loadVitalsCorpus('tuning');
const heldOut = loadVitalsCorpus('held-out');

describe('the vitals corpus, case by case (the part the extractor was written against)', () => {
  it.each(tuning.map((item) => [item.id, item] as const))('%s', (_id, item) => {
    expect(found(item.text).sort()).toEqual([...item.vitals].sort());
    expect(detectSpecies(item.text)).toBe(item.species);
  });
});

describe('the held-out part of the corpus', () => {
  it('keeps precision and recall per vital above a floor (npm run eval:vitals prints them)', () => {
    const { perCode } = scoreCases(heldOut, found);
    const all = total(perCode);
    expect(all.truePositives + all.falseNegatives).toBeGreaterThan(80);
    expect(precision(all)).toBeGreaterThanOrEqual(0.97);
    expect(recall(all)).toBeGreaterThanOrEqual(0.95);
    for (const [code, score] of perCode) {
      expect(precision(score), code).toBeGreaterThanOrEqual(0.9);
      expect(recall(score), code).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('names the species when the consultation says it', () => {
    const right = heldOut.filter((item) => detectSpecies(item.text) === item.species).length;
    expect(right / heldOut.length).toBeGreaterThanOrEqual(0.95);
  });
});

describe('number forms', () => {
  it.each([
    ['temperatura trinta e nove e oito', 'temperature=39.8'],
    ['temperatura trinta e nove vírgula oito', 'temperature=39.8'],
    ['temperatura de trinta e oito ponto cinco graus', 'temperature=38.5'],
    ['T 39,5', 'temperature=39.5'],
    ['TR: 39.5°C', 'temperature=39.5'],
    ['febre de quarenta graus', 'temperature=40'],
    ['trinta e nove graus e meio', 'temperature=39.5'],
    ['39,8 ºC', 'temperature=39.8'],
    ['doze quilos e trezentos', 'weight=12.3'],
    ['pesa doze quilos e trezentos gramas', 'weight=12.3'],
    ['peso doze e trezentos', 'weight=12.3'],
    ['peso quatro vírgula dois', 'weight=4.2'],
    ['pesando novecentos e cinquenta gramas', 'weight=0.95'],
    ['peso: 1.200 kg', 'weight=1200'],
    ['peso 8 kg e 500 g', 'weight=8.5'],
    ['oito quilos e meio', 'weight=8.5'],
    ['frequência cardíaca cento e oitenta', 'heart_rate=180'],
    ['FC: 120bpm', 'heart_rate=120'],
    ['cento e vinte e dois batimentos por minuto', 'heart_rate=122'],
    ['FR 28 mpm', 'respiratory_rate=28'],
    ['trinta movimentos respiratórios por minuto', 'respiratory_rate=30'],
    ['TPC de três segundos', 'capillary_refill_time=3'],
    ["TPC 2''", 'capillary_refill_time=2'],
    ['tempo de reperfusão capilar de um segundo', 'capillary_refill_time=1'],
    ['ECC 3/5', 'body_condition_score=3/5'],
    ['escore de condição corporal sete', 'body_condition_score=7/9'],
    ['ECC cinco de nove', 'body_condition_score=5/9'],
    ['BCS 4 na escala de 1 a 5', 'body_condition_score=4/5'],
    ['desidratação de 8%', 'dehydration=8'],
    ['desidratado, uns sete por cento', 'dehydration=7'],
    ['8% de desidratação', 'dehydration=8'],
    ['quatro vírgula dois por cento de desidratação', 'dehydration=4.2'],
  ])('%s → %s', (text, expected) => {
    expect(found(text)).toEqual([expected]);
  });
});

describe('comparators', () => {
  it.each([
    ['TPC menor que dois segundos', 'capillary_refill_time<2'],
    ['TPC inferior a 2 s', 'capillary_refill_time<2'],
    ['TPC < 2s', 'capillary_refill_time<2'],
    ['desidratação abaixo de cinco por cento', 'dehydration<5'],
    ['FC acima de 200', 'heart_rate>200'],
    ['temperatura superior a 40', 'temperature>40'],
    ['TPC maior que 3 segundos', 'capillary_refill_time>3'],
    ['TPC até 2 segundos', 'capillary_refill_time<=2'],
    ['desidratação entre 6 e 8%', 'dehydration>=6'],
    ['temperatura mais ou menos trinta e nove', 'temperature=39'],
  ])('%s → %s', (text, expected) => {
    expect(found(text)).toEqual([expected]);
  });
});

describe('mucous membranes', () => {
  it.each([
    ['mucosas normocoradas', ['mucous_membranes=normal']],
    ['mucosas róseas e úmidas', ['mucous_membranes=normal']],
    ['mucosas hipocoradas', ['mucous_membranes=pale']],
    ['mucosa oral pálida', ['mucous_membranes=pale']],
    ['mucosas congestas', ['mucous_membranes=hyperemic']],
    ['mucosas pálidas e levemente ictéricas', ['mucous_membranes=pale', 'mucous_membranes=icteric']],
    ['gengiva arroxeada', ['mucous_membranes=cyanotic']],
    ['mucosas sem icterícia, normocoradas', ['mucous_membranes=normal']],
    ['mucosas rosa-pálido', ['mucous_membranes=pale']],
  ])('%s', (text, expected) => {
    expect(found(text)).toEqual(expected);
  });
});

describe('numbers that are not vitals', () => {
  it.each([
    'amoxicilina 20 mg/kg a cada 12 horas por 7 dias',
    'meio comprimido de 500 mg duas vezes ao dia',
    'cão de oito anos, vacinado há trinta dias',
    'hematócrito 45%, creatinina 2,8, plaquetas 90 mil',
    'a consulta custa 150 reais, o exame 39 reais',
    'sopro grau 3 em foco mitral, claudicação grau 2 de 5',
    'temperatura ambiente 25 graus',
    'manter o terrário entre 28 e 32 graus',
    'armazenar a vacina de 2 a 8 graus',
    'saco de ração de 15 kg, come 200 gramas por dia',
    'perdeu 2 kg no último mês',
    'peso ideal 10 kg',
    'teve febre há três dias',
    'frequência cardíaca e respiratória dentro da normalidade',
    'escore de dor 3, escore Famacha 4',
    'T4 total de 2,5',
    'vermífugo para cães de 10 a 20 kg',
    'dente canino fraturado',
    'ele pesava 14 kg no ano passado',
    'clorexidina 2% duas vezes por semana',
  ])('%s', (text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('dose rates are never a weight', () => {
  // A dose per body weight ("1 ml para cada 50 kg de peso vivo") names a weight band of the
  // prescription, not the patient's weight: a herd consultation turned one into a weight of 50 kg.
  it.each([
    '1 ml para cada 50 kg de peso vivo',
    '1 ml/50 kg',
    '2 mg por kg',
    '0,2 ml a cada 10 kg de peso vivo',
    'dose de 1 ml por 10 kg de PV',
    'ivermectina 1%, 1 ml para cada 50 kg de peso vivo, em todo o lote',
    'um comprimido por 10 kg de peso',
    '2 mg por kg de peso vivo',
  ])('%s → no weight', (text) => {
    expect(found(text)).toEqual([]);
  });

  it.each([
    ['peso 32,4 kg', 'weight=32.4'],
    ['pesando 50 kg', 'weight=50'],
    ['está com 50 quilos', 'weight=50'],
    ['vaca holandesa, peso vivo de 450 kg', 'weight=450'],
    ['vaca de 450 kg de peso vivo', 'weight=450'],
    ['vaca com 450 kg de peso vivo; ivermectina 1 ml para cada 50 kg de peso vivo', 'weight=450'],
  ])('%s → %s', (text, expected) => {
    expect(found(text)).toEqual([expected]);
  });
});

describe('species', () => {
  it.each([
    ['paciente canino, SRD', 'canine'],
    ['a cadela convive com dois gatos e um gato novo', 'canine'],
    ['gata siamesa', 'feline'],
    ['égua prenhe', 'equine'],
    ['quarto de milha de 10 anos', 'equine'],
    ['bezerra nelore', 'bovine'],
    ['bode com timpanismo', 'caprine'],
    ['ovelha santa inês', 'ovine'],
    ['coelho mini lop', 'lagomorph'],
    ['calopsita arrancando penas', 'avian'],
    ['porquinho-da-índia com dente crescido', 'other'],
    ['o dente canino fraturou', null],
    ['tutora relata vômito há dois dias', null],
  ])('%s → %s', (text, species) => {
    expect(detectSpecies(text)).toBe(species);
  });
});

describe('flags', () => {
  const ranges = effectiveRanges({});
  const flagged = (text: string, species: Parameters<typeof flagVitals>[1]) =>
    flagVitals(vitalsOfText(text), species, ranges).map((vital) => `${compact(vital)} ${vital.flag}`);

  it('the dictated example: high for a dog, 180 bpm normal for a cat', () => {
    const text = 'temperatura trinta e nove e oito, frequência cardíaca cento e oitenta, mucosas hipocoradas, TPC de três segundos';
    expect(flagged(text, 'canine')).toEqual([
      'temperature=39.8 high',
      'heart_rate=180 high',
      'capillary_refill_time=3 high',
      'mucous_membranes=pale abnormal',
    ]);
    expect(flagged(text, 'feline')).toEqual([
      'temperature=39.8 high',
      'heart_rate=180 null',
      'capillary_refill_time=3 high',
      'mucous_membranes=pale abnormal',
    ]);
  });

  it('low, inclusive bounds, species without a row, and every-species rows', () => {
    expect(flagged('FC 28, FR 8, temperatura 37,2', 'equine')).toEqual([
      'temperature=37.2 null',
      'heart_rate=28 null',
      'respiratory_rate=8 null',
    ]);
    expect(flagged('FC 27, temperatura 37,1', 'equine')).toEqual(['temperature=37.1 low', 'heart_rate=27 low']);
    expect(flagged('FC 300, temperatura 41, desidratação de 8%, ECC 7', 'caprine')).toEqual([
      'temperature=41 null',
      'heart_rate=300 null',
      'body_condition_score=7/9 high',
      'dehydration=8 high',
    ]);
    expect(flagged('ECC 3/5, ECC 2/5, ECC 4/9, ECC 3', null)).toEqual([
      'body_condition_score=3/5 null',
      'body_condition_score=2/5 low',
      'body_condition_score=4/9 null',
      'body_condition_score=3/9 low',
    ]);
    expect(flagged('peso 40 kg, mucosas normocoradas', 'canine')).toEqual(['weight=40 null', 'mucous_membranes=normal null']);
  });

  it('keeps what a comparator says: "< 2 s" is never high, "> 2 s" is', () => {
    const crt = DEFAULT_RANGES.canine.capillary_refill_time;
    expect(flagAgainst(2, '<', crt)).toBeNull();
    expect(flagAgainst(2, '<=', crt)).toBeNull();
    expect(flagAgainst(2, '>', crt)).toBe('high');
    expect(flagAgainst(2, '>=', crt)).toBeNull();
    expect(flagAgainst(3, '>=', crt)).toBe('high');
    expect(flagAgainst(37, '<', DEFAULT_RANGES.bovine.temperature)).toBe('low');
    expect(flagAgainst(40, '<', DEFAULT_RANGES.bovine.temperature)).toBeNull();
  });
});

describe('reference range overrides', () => {
  it('a bound left out keeps the default, null removes the override, null species removes all', () => {
    let overrides = patchOverrides({}, { canine: { heart_rate: { max: 200 }, temperature: { min: 37 } } });
    expect(effectiveRanges(overrides).canine.heart_rate).toEqual({ min: 60, max: 200 });
    expect(effectiveRanges(overrides).canine.temperature).toEqual({ min: 37, max: 39.2 });
    overrides = patchOverrides(overrides, { canine: { heart_rate: null } });
    expect(effectiveRanges(overrides).canine.heart_rate).toEqual({ min: 60, max: 160 });
    expect(effectiveRanges(overrides).canine.temperature).toEqual({ min: 37, max: 39.2 });
    overrides = patchOverrides(overrides, { caprine: { temperature: { min: 38.5, max: 40 } }, canine: null });
    expect(overrides).toEqual({ caprine: { temperature: { min: 38.5, max: 40 } } });
    expect(effectiveRanges(overrides).caprine.temperature).toEqual({ min: 38.5, max: 40 });
    // A null bound is no bound; a range with no bound at all is no range.
    overrides = patchOverrides(overrides, { feline: { dehydration: { max: null } } });
    expect(effectiveRanges(overrides).feline.dehydration).toBeUndefined();
  });

  it('refuses a minimum above its maximum, naming the field', () => {
    expect(() => patchOverrides({}, { canine: { heart_rate: { min: 170 } } })).toThrow('reference_ranges.canine.heart_rate');
  });
});

describe('evidence', () => {
  it('is the time range of the segments that said the words, across two segments when they run over', () => {
    const vitals = vitalsOfTranscript({
      text: '',
      segments: [
        { start: 0, end: 4.2, text: 'Paciente canino, vômito há dois dias.' },
        { start: 4.2, end: 9.8, text: 'Temperatura trinta e nove e oito, frequência cardíaca' },
        { start: 9.8, end: 12, text: 'cento e oitenta. Mucosas hipocoradas.' },
      ],
    });
    expect(vitals.map((vital) => [vital.code, vital.text, vital.evidence])).toEqual([
      ['temperature', 'Temperatura trinta e nove e oito', { start: 4.2, end: 9.8 }],
      ['heart_rate', 'frequência cardíaca cento e oitenta', { start: 4.2, end: 12 }],
      ['mucous_membranes', 'Mucosas hipocoradas', { start: 9.8, end: 12 }],
    ]);
  });

  it('is null without timed segments, and a value said twice is one entry (the first time)', () => {
    const vitals = vitalsOfTranscript({ text: 'FC 120. Reavaliando, FC 120. Depois FC 100.', segments: [] });
    expect(vitals).toEqual([
      { code: 'heart_rate', value: 120, unit: 'bpm', comparator: null, text: 'FC 120', evidence: null },
      { code: 'heart_rate', value: 100, unit: 'bpm', comparator: null, text: 'FC 100', evidence: null },
    ]);
  });
});

describe('a drafted vital that differs from the transcript', () => {
  const said = vitalsOfText('Temperatura trinta e nove e quatro, frequência cardíaca cento e vinte.');
  const drafted = (content: string) =>
    groundDraftedVitals(
      {
        style: 'clinical',
        sections: [{ label: 'physical_exam', title: 'Exame Físico', content, evidence: [] }],
        reviewFlags: [],
        fallback: null,
      },
      said,
    ).reviewFlags;

  it('is flagged vital_mismatch with its words; one that agrees, or a code the transcript did not give, is not', () => {
    expect(drafted('T 39,4 °C; FC 120 bpm.')).toEqual([]);
    expect(drafted('T 39,8 °C. FC 120 bpm. Peso 8 kg.')).toEqual([
      { section: 'physical_exam', sentence: 'T 39,8 °C.', reason: 'vital_mismatch', token: 'T 39,8 °C' },
    ]);
  });

  it("leaves verbatim notes alone (their words are the transcript's)", () => {
    const written = { style: 'verbatim' as const, sections: [], reviewFlags: [], fallback: null };
    expect(groundDraftedVitals(written, said)).toBe(written);
  });
});

describe('a section edit', () => {
  const current = flagVitals(vitalsOfText('Temperatura 39,8. FC 180. Peso 12 kg.'), 'canine', effectiveRanges({})) as Vital[];

  it('drops the values whose words changed and adds the new ones; untouched text changes nothing', () => {
    const change = vitalsAfterEdit(current, 'Temperatura 39,8. FC 180.', 'Temperatura 39,2. FC 180.');
    expect([...change!.removed]).toEqual([JSON.stringify(['temperature', 39.8, '°C', null])]);
    expect(change!.added).toEqual([
      { code: 'temperature', value: 39.2, unit: '°C', comparator: null, text: 'Temperatura 39,2', evidence: null },
    ]);
    expect(vitalsAfterEdit(current, 'Temperatura 39,8. FC 180.', 'Temperatura 39,8 (retal). FC 180, ritmo regular.')).toBeNull();
  });
});
