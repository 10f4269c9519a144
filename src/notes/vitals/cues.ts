// The words a vital is announced with, and the units it is said in, folded (no accents, lower case).
// docs/notes-vitals.md lists them for a reader; this table is what the extractor uses.

import type { VitalCode } from '../store/vitals.schemas.ts';

export type NumericCode = Exclude<VitalCode, 'mucous_membranes'>;

export interface Cue {
  code: NumericCode;
  words: string[];
  /** Only when a number follows at once ("T 39,5"): a single letter means too much else. */
  strict?: boolean;
}

const cue = (code: NumericCode, phrases: string[], strict = false): Cue[] =>
  phrases.map((phrase) => ({ code, words: phrase.split(' '), strict }));

/** Longest first, so "frequencia cardiaca" wins over "cardiaca". */
export const CUES: Cue[] = [
  ...cue('temperature', ['temperatura retal', 'temperatura corporal', 'temperatura', 'temp', 'febre', 'termometro', 'tr', 'tax']),
  ...cue('temperature', ['t'], true),
  ...cue('weight', [
    'peso corporal',
    'peso vivo',
    'peso',
    'pesa',
    'pesando',
    'pesou',
    'pesagem',
    'pesado',
    'pesada',
    'pesar',
    'pesamos',
    'balanca',
    'pv',
  ]),
  ...cue('heart_rate', [
    'frequencia cardiaca',
    'freq cardiaca',
    'freq card',
    'batimentos cardiacos',
    'fc',
    'coracao',
    'cardiaca',
    'batimentos',
  ]),
  ...cue('respiratory_rate', [
    'frequencia respiratoria',
    'freq respiratoria',
    'freq resp',
    'movimentos respiratorios',
    'fr',
    'respiratoria',
    'respiracao',
  ]),
  ...cue('capillary_refill_time', [
    'tempo de preenchimento capilar',
    'tempo de reperfusao capilar',
    'tempo de perfusao capilar',
    'preenchimento capilar',
    'reperfusao capilar',
    'perfusao capilar',
    'tpc',
    'trc',
    'crt',
  ]),
  ...cue('body_condition_score', [
    'escore de condicao corporal',
    'score de condicao corporal',
    'indice de condicao corporal',
    'escore corporal',
    'score corporal',
    'condicao corporal',
    'ecc',
    'bcs',
    'escore',
  ]),
  ...cue('dehydration', ['grau de desidratacao', 'desidratacao', 'desidratado', 'desidratada', 'desidratados']),
].sort((a, b) => b.words.length - a.words.length);

/** Units after the number; `factor` converts to the code's unit (grams to kg, arrobas to kg). */
export const UNITS: Record<NumericCode, { words: string[]; factor?: number }[]> = {
  temperature: [
    { words: ['°c'] },
    { words: ['°'] },
    { words: ['graus', 'celsius'] },
    { words: ['graus'] },
    { words: ['grau'] },
    { words: ['c'] },
  ],
  weight: [
    ...['kg', 'kgs', 'quilos', 'quilo', 'kilos', 'kilo', 'quilogramas', 'quilograma', 'k'].map((word) => ({ words: [word] })),
    ...['g', 'gr', 'gramas', 'grama'].map((word) => ({ words: [word], factor: 0.001 })),
    ...['arrobas', 'arroba'].map((word) => ({ words: [word], factor: 15 })),
  ],
  heart_rate: [
    { words: ['batimentos', 'por', 'minuto'] },
    { words: ['batimentos', 'cardiacos', 'por', 'minuto'] },
    { words: ['bat', '/', 'min'] },
    { words: ['batimentos', 'cardiacos'] },
    { words: ['batimentos'] },
    { words: ['bpm'] },
  ],
  respiratory_rate: [
    { words: ['movimentos', 'respiratorios', 'por', 'minuto'] },
    { words: ['movimentos', 'por', 'minuto'] },
    { words: ['respiracoes', 'por', 'minuto'] },
    { words: ['incursoes', 'por', 'minuto'] },
    { words: ['movimentos', 'respiratorios'] },
    { words: ['incursoes', 'respiratorias'] },
    { words: ['movimentos'] },
    { words: ['respiracoes'] },
    { words: ['incursoes'] },
    { words: ['mpm'] },
    { words: ['rpm'] },
    { words: ['irpm'] },
    { words: ['mrpm'] },
    { words: ['ipm'] },
    { words: ['/', 'min'] },
    { words: ['por', 'minuto'] },
  ],
  capillary_refill_time: [...['segundos', 'segundo', 'seg', 's', 'sec', "''", '"'].map((word) => ({ words: [word] }))],
  body_condition_score: [],
  dehydration: [{ words: ['%'] }, { words: ['por', 'cento'] }, { words: ['porcento'] }],
};

/** Said without a cue, these units alone name the vital ("180 bpm", "28 mpm"). */
export const SELF_NAMING_UNITS: Partial<Record<NumericCode, string[][]>> = {
  heart_rate: [['bpm'], ['batimentos', 'por', 'minuto'], ['batimentos', 'cardiacos', 'por', 'minuto'], ['bat', '/', 'min']],
  respiratory_rate: [
    ['mpm'],
    ['irpm'],
    ['mrpm'],
    ['movimentos', 'respiratorios'],
    ['movimentos', 'por', 'minuto'],
    ['respiracoes', 'por', 'minuto'],
    ['incursoes', 'respiratorias'],
  ],
  temperature: [['°c'], ['°'], ['graus', 'celsius'], ['graus']],
  weight: [['kg'], ['kgs'], ['quilos'], ['quilo'], ['kilos'], ['quilogramas']],
};

/** Units of something else: a number followed by one of these is not the vital announced before it. */
export const OTHER_UNITS = new Set(
  (
    'dia dias ano anos mes meses semana semanas hora horas h hs min minutos mg mcg ml l litro litros ui comprimido comprimidos ' +
    'comp cp capsula capsulas gota gotas vez vezes reais real r mm cm metros metro x ampola ampolas dose doses sache saches ' +
    'pipeta pipetas filhotes animais cabecas mil'
  ).split(' '),
);

/** Between a cue and its number: articles, verbs of measuring, hedges ("uns", "cerca de"). */
export const FILLERS = new Set(
  (
    'de da do em no na a o e ta esta estava estao era foi deu da marcou marcando marca mede medindo mediu medida medido ' +
    'aferida aferido aferi aferiu aferimos com igual aproximadamente aprox cerca uns umas torno volta redor por dele dela ' +
    'hoje agora atual atualmente ficou bateu ai ne entao la aqui ja tambem so mesmo valor normal boa bom alta alto baixa ' +
    'baixo elevada elevado aumentada aumentado diminuida diminuido levemente discretamente ligeiramente retal axilar ' +
    'corporal estimada estimado estimo estimamos vivo atual dela tava que ele ela quanto leve moderada grave severa discreta'
  ).split(' '),
);

/** After these a weight is not the patient's weight today. */
export const NOT_TODAYS_WEIGHT = new Set(
  (
    'perdeu perda ganhou ganho ganhar perder emagreceu engordou ideal meta alvo anterior pesava tinha costumava saco ' +
    'pacote racao alimento cada milho capim feno silagem concentrado graos comeu come comer comendo'
  ).split(' '),
);

/** After a weight: it was the weight of another time ("dez quilos mês passado"). */
export const PAST_AFTER = new Set(['passado', 'passada', 'atras', 'antes', 'anterior']);

/** "temperatura ambiente", "temperatura da água": not the patient's. */
export const NOT_BODY_TEMPERATURE = new Set(
  'ambiente sala agua geladeira refrigerador refrigeracao armazenamento externa quarto banho ar freezer congelador forno'.split(' '),
);

export const COMPARATOR_PHRASES: { words: string[]; comparator: '<' | '<=' | '>' | '>=' }[] = [
  ...['menor ou igual a', 'no maximo', 'ate', '<=', '≤'].map((phrase) => ({ words: phrase.split(' '), comparator: '<=' as const })),
  ...['maior ou igual a', 'no minimo', 'pelo menos', '>=', '≥'].map((phrase) => ({
    words: phrase.split(' '),
    comparator: '>=' as const,
  })),
  ...['menor do que', 'menor que', 'menos do que', 'menos que', 'menos de', 'inferior a', 'abaixo de', 'abaixo dos', 'abaixo', '<'].map(
    (phrase) => ({ words: phrase.split(' '), comparator: '<' as const }),
  ),
  ...['maior do que', 'maior que', 'mais do que', 'mais que', 'mais de', 'superior a', 'acima de', 'acima dos', 'acima', '>'].map(
    (phrase) => ({ words: phrase.split(' '), comparator: '>' as const }),
  ),
].sort((a, b) => b.words.length - a.words.length);

/** Values a vital can take; outside them the number is something else (a day count, a dose). */
export const PLAUSIBLE: Record<NumericCode, { min: number; max: number; integer?: boolean }> = {
  temperature: { min: 30, max: 45 },
  weight: { min: 0.01, max: 1500 },
  heart_rate: { min: 10, max: 400, integer: true },
  respiratory_rate: { min: 2, max: 200, integer: true },
  capillary_refill_time: { min: 0, max: 10 },
  body_condition_score: { min: 1, max: 9 },
  dehydration: { min: 0, max: 20 },
};
