// Units of measure as said or written, mapped to one name each ("miligramas", "mg" → mg), and the
// words that imply a unit without saying it ("temperatura 39,4" grounds "39,4 °C").

export type Unit = string;

// biome-ignore format: a table reads better packed
const UNITS: Record<string, Unit> = {
  mg: 'mg', miligrama: 'mg', miligramas: 'mg',
  g: 'g', grama: 'g', gramas: 'g',
  kg: 'kg', quilo: 'kg', quilos: 'kg', kilo: 'kg', kilos: 'kg', quilograma: 'kg', quilogramas: 'kg',
  mcg: 'mcg', µg: 'mcg', ug: 'mcg', micrograma: 'mcg', microgramas: 'mcg',
  ml: 'ml', mililitro: 'ml', mililitros: 'ml',
  l: 'l', litro: 'l', litros: 'l',
  ui: 'ui', unidades: 'ui', unidade: 'ui',
  comprimido: 'comprimido', comprimidos: 'comprimido', comp: 'comprimido', cp: 'comprimido', cps: 'comprimido',
  capsula: 'capsula', capsulas: 'capsula', caps: 'capsula',
  gota: 'gota', gotas: 'gota', gt: 'gota', gts: 'gota',
  ampola: 'ampola', ampolas: 'ampola', pipeta: 'pipeta', pipetas: 'pipeta', sache: 'sache', saches: 'sache',
  h: 'h', hr: 'h', hrs: 'h', hs: 'h', hora: 'h', horas: 'h',
  min: 'min', minuto: 'min', minutos: 'min',
  dia: 'dia', dias: 'dia',
  semana: 'semana', semanas: 'semana',
  mes: 'mes', meses: 'mes',
  ano: 'ano', anos: 'ano',
  '°c': 'celsius', grau: 'celsius', graus: 'celsius', celsius: 'celsius',
  bpm: 'bpm', batimentos: 'bpm',
  mpm: 'mpm', rpm: 'mpm', irpm: 'mpm', movimentos: 'mpm',
  '%': '%',
  cm: 'cm', centimetro: 'cm', centimetros: 'cm', mm: 'mm', milimetro: 'mm', milimetros: 'mm',
};

/** Written only as symbols or abbreviations: a unit wherever it stands. */
const ALWAYS_UNITS = new Set(['mg', 'kg', 'mcg', 'µg', 'ml', 'ui', '°c', 'bpm', 'mpm', 'irpm', '%']);

/** What a vet says instead of the unit: a temperature is in °C, a heart rate in bpm. */
// biome-ignore format: a table reads better packed
const IMPLIED_BY: Record<string, Unit> = {
  temperatura: 'celsius', febre: 'celsius', termometro: 'celsius',
  cardiaca: 'bpm', batimento: 'bpm', pulso: 'bpm', fc: 'bpm',
  respiratoria: 'mpm', respiracao: 'mpm', fr: 'mpm',
  pesa: 'kg', peso: 'kg', pesando: 'kg',
};

export function unitOf(word: string): Unit | null {
  // Spoken Portuguese shrinks units fondly: "dois aninhos", "uns diazinhos", "meio comprimidinho".
  return UNITS[word] ?? UNITS[word.replace(/z?inh([oa]s?)$/, '$1')] ?? null;
}

/** A unit word counts in a drafted sentence wherever it stands when it is a symbol. */
export function isSymbolUnit(word: string): boolean {
  return ALWAYS_UNITS.has(word);
}

export function impliedUnit(word: string): Unit | null {
  return IMPLIED_BY[word] ?? null;
}
