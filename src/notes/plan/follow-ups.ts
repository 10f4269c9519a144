// Follow-ups: a return, recheck, booster, result to bring or scheduled procedure, with the interval
// said ("em 15 dias", "daqui a duas semanas" → 14, "em 48 horas" → 2, "no mês que vem" → 30,
// "três meses" → 90, "um ano" → 365) or a condition ("se piorar": no date). The words of one
// follow-up run from its first cue to its interval; cues said together ("retorno em 10 dias para
// reavaliar e tirar os pontos") are one follow-up, of the most specific kind said.

import { readAmount } from '../../language/spoken-numbers.ts';
import type { FollowUpKind } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

const cue = (kind: FollowUpKind, list: string[]) => list.map((phrase) => [phrase, kind] as const);

const CUES = new PhraseTable<FollowUpKind>([
  ...cue('recheck', [
    'retorno', 'retornar', 'retorne', 'retornamos', 'retorna', 'revisao', 'reavaliacao', 'reavaliar', 'reavaliamos', 'reavalio',
    'voltar', 'volta', 'volte', 'voltem', 'trazer de novo', 'trazer novamente', 'trazer ele de novo', 'trazer ela de novo',
    'traz de novo', 'traga de novo', 'nova consulta', 'consulta de retorno', 'consulta de revisao', 'recheck', 'controle',
    'acompanhamento', 'nos vemos', 'a gente se ve', 'traz ele', 'traz ela', 'traga', 'tragam', 'trazer', 'traz',
  ]),
  ...cue('vaccine_booster', [
    'reforco', 'dose de reforco', 'segunda dose', 'terceira dose', 'proxima dose', 'proxima vacina', 'revacinar', 'revacinacao',
    'segunda dose da vacina', 'reforco da vacina', 'vacina de novo',
  ]),
  ...cue('exam_result', ['resultado', 'resultados', 'com o resultado', 'com os resultados', 'com o exame', 'com os exames', 'quando sair o resultado', 'buscar o resultado', 'trazer o exame', 'trazer os exames', 'trazer o resultado']),
  ...cue('procedure', [
    'cirurgia', 'castracao', 'castrar', 'procedimento', 'tirar os pontos', 'retirar os pontos', 'retirada dos pontos', 'retirada de pontos',
    'tirar ponto', 'pontos', 'tartarectomia', 'limpeza de tartaro', 'profilaxia dentaria', 'orquiectomia', 'ovariohisterectomia', 'ovh',
    'extracao', 'curativo', 'troca de curativo', 'trocar o curativo', 'drenagem', 'sedacao', 'anestesia', 'internacao', 'biopsia',
    'endoscopia', 'casqueamento', 'ferrageamento',
  ]),
  ...cue('other', ['ligar', 'me ligar', 'ligue', 'me liga', 'telefonar', 'entrar em contato', 'dar noticias', 'mandar noticias', 'mandar foto', 'mandar mensagem', 'manda mensagem', 'me manda']),
]);
/** More specific kinds win over a plain return said with them. */
const PRECEDENCE: FollowUpKind[] = ['vaccine_booster', 'procedure', 'exam_result', 'recheck', 'other'];
/** Kinds a cue alone does not make: only with an interval or a condition ("pontos", "resultado", "volta", "traz"). */
const WEAK = new Set(['volta', 'voltar', 'volte', 'voltem', 'traga', 'tragam', 'trazer', 'traz', 'controle', 'acompanhamento', 'pontos', 'resultado', 'resultados', 'cirurgia', 'castracao', 'castrar', 'procedimento', 'anestesia', 'sedacao', 'internacao', 'biopsia', 'endoscopia', 'extracao', 'drenagem', 'curativo', 'ligar', 'ligue', 'telefonar', 'proxima', 'reavaliar', 'revisao', 'retorno', 'retornar', 'reforco']);

const CONDITIONS = new PhraseTable<true>(
  [
    'se piorar', 'se nao melhorar', 'caso piore', 'caso nao melhore', 'se voltar a', 'se continuar', 'se persistir', 'se tiver',
    'se apresentar', 'qualquer alteracao', 'qualquer coisa', 'qualquer sinal', 'se notar', 'se ele piorar', 'se ela piorar',
    'se ele nao melhorar', 'se ela nao melhorar', 'se necessario', 'se precisar', 'em caso de', 'caso tenha', 'caso apresente',
    'se o', 'se a', 'se ele', 'se ela', 'caso',
  ].map((phrase) => [phrase, true] as const),
);

// biome-ignore format: a table reads better packed
const UNIT_DAYS: Record<string, number> = {
  dia: 1, dias: 1, semana: 7, semanas: 7, mes: 30, meses: 30, ano: 365, anos: 365, hora: 1 / 24, horas: 1 / 24, h: 1 / 24,
};
const FIXED: [string[], number][] = [
  [['depois', 'de', 'amanha'], 2],
  [['amanha'], 1],
  [['semana', 'que', 'vem'], 7],
  [['proxima', 'semana'], 7],
  [['mes', 'que', 'vem'], 30],
  [['proximo', 'mes'], 30],
  [['ano', 'que', 'vem'], 365],
  [['proximo', 'ano'], 365],
  [['daqui', 'a', 'um', 'mes'], 30],
  [['quinzena'], 15],
];
const LEADS = new Set(['em', 'daqui', 'a', 'dentro', 'de', 'apos', 'depois', 'com', 'no', 'na', 'uns', 'umas', 'mais', 'ou', 'menos', 'cerca', 'prazo', 'maximo', 'ate', 'o', 'para', 'pra', 'so']);

export interface Due {
  days: number | null;
  first: number;
  end: number;
}

/** "em 15 dias", "daqui a duas semanas", "48 horas", "no mês que vem", "amanhã", starting at `at`. */
export function dueAt(words: readonly string[], at: number): Due | null {
  for (const [phrase, days] of FIXED) {
    if (phrase.every((word, i) => words[at + i] === word)) return { days, first: at, end: at + phrase.length };
  }
  const number = readAmount(words as string[], at);
  if (!number || number.value <= 0) return null;
  const unit = UNIT_DAYS[words[number.end] ?? ''];
  if (unit === undefined) return null;
  // "ele tem dois anos", "há dez dias", "a cada 12 horas": an age, the past, a schedule.
  if (['tem', 'ha', 'faz', 'cada', 'por', 'durante', 'idade'].includes(words[at - 1] ?? '')) return null;
  if (['atras', 'de', 'idade'].includes(words[number.end + 1] ?? '') && words[number.end + 2] !== 'tratamento') {
    if (words[number.end + 1] !== 'de' || ['idade', 'vida'].includes(words[number.end + 2] ?? '')) return null;
  }
  const days = unit < 1 ? Math.ceil(number.value * unit) : Math.round(number.value * unit);
  return { days, first: at, end: number.end + 1 };
}

export interface FoundFollowUp {
  kind: FollowUpKind;
  dueInDays: number | null;
  used: number[];
}

/** How far after a cue its interval may be said, and before it. */
const AFTER = 10;
const BEFORE = 6;

export function followUpCueAt(words: readonly string[], at: number): boolean {
  return CUES.at(words, at) !== null;
}

export function findFollowUps(w: Words): FoundFollowUp[] {
  const { words } = w;
  const found: FoundFollowUp[] = [];
  for (let at = 0; at < words.length; ) {
    const first = CUES.at(words, at);
    if (!first) {
      at++;
      continue;
    }
    // Every cue up to the end of the clause: one follow-up.
    const kinds: FollowUpKind[] = [first.value];
    const used: number[] = range(at, first.end);
    let strong = !WEAK.has(words[at]!) || first.end - at > 1;
    let k = first.end;
    let due: Due | null = null;
    let condition: [number, number] | null = null;
    let lastUseful = first.end;
    while (k < words.length && k - lastUseful <= AFTER) {
      if (w.breakBefore[k] && (due || condition)) break;
      const more = CUES.at(words, k);
      if (more) {
        kinds.push(more.value);
        used.push(...range(k, more.end));
        if (!WEAK.has(words[k]!) || more.end - k > 1) strong = true;
        lastUseful = more.end;
        k = more.end;
        continue;
      }
      if (!due && (LEADS.has(words[k - 1] ?? '') || k === lastUseful)) {
        const read = dueAt(words, k);
        if (read) {
          due = read;
          used.push(...range(leadStart(words, k, lastUseful), read.end));
          lastUseful = read.end;
          k = read.end;
          continue;
        }
      }
      if (!condition && !due) {
        const cond = CONDITIONS.at(words, k);
        if (cond) {
          condition = [k, cond.end];
          lastUseful = cond.end;
          k = cond.end;
          continue;
        }
      }
      if (w.breakBefore[k] && k > first.end) break;
      k++;
    }
    // Said before the cue: "em 15 dias, retorno", "daqui a uma semana ela volta", "se piorar, traz de novo".
    if (!due && !condition) {
      for (let j = Math.max(0, at - BEFORE); j < at; j++) {
        const read = dueAt(words, j);
        if (read && read.end <= at && (LEADS.has(words[j - 1] ?? '') || read.end === at)) {
          due = read;
          used.push(...range(leadStart(words, j, 0), read.end));
          break;
        }
        const cond = CONDITIONS.at(words, j);
        if (cond && cond.end <= at) {
          condition = [j, cond.end];
          break;
        }
      }
    }
    const end = Math.max(k, first.end);
    if (due || condition || strong) {
      if (condition) used.push(...range(condition[0], condition[1]));
      const kind = PRECEDENCE.find((candidate) => kinds.includes(candidate))!;
      found.push({ kind, dueInDays: due ? due.days : null, used });
    }
    at = due ? Math.max(end, due.end) : end;
  }
  return dedupe(found);
}

/** "em", "daqui a", "dentro de" before an interval belong to its words. */
function leadStart(words: readonly string[], at: number, limit: number): number {
  let k = at;
  while (k > limit && k > at - 3 && ['em', 'daqui', 'a', 'dentro', 'de', 'apos', 'no', 'na', 'uns', 'umas', 'cerca'].includes(words[k - 1]!)) k--;
  return k;
}

/** The same follow-up said twice ("retorno em 15 dias ... então nos vemos em 15 dias") is one. */
function dedupe(found: FoundFollowUp[]): FoundFollowUp[] {
  const kept: FoundFollowUp[] = [];
  for (const item of found) {
    const same = kept.find((other) => other.kind === item.kind && (other.dueInDays === item.dueInDays || item.dueInDays === null));
    if (same) continue;
    const undated = kept.findIndex((other) => other.kind === item.kind && other.dueInDays === null);
    if (undated >= 0 && item.dueInDays !== null) {
      kept[undated] = item;
      continue;
    }
    kept.push(item);
  }
  return kept;
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
