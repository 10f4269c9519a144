// Follow-ups: a return, recheck, booster, result to bring or scheduled procedure, with the interval
// said ("em 15 dias", "daqui a duas semanas" → 14, "em 48 horas" → 2, "no mês que vem" → 30,
// "três meses" → 90, "um ano" → 365), or a condition with no date ("se piorar, traz antes", "se
// tiver febre, me liga"). Two passes:
//   1. conditions: "se …"/"caso …"/"ou antes se …" with, in the same sentence, a word that brings the
//      animal back ("traz", "volta aqui", "vem direto") → recheck, or asks for a call ("me liga",
//      "me avisa", "me chama") → other; due null;
//   2. intervals: every interval said outside a condition, with a follow-up word in its clause (the
//      words before it in its sentence, back to the interval before; after it, up to a comma). The
//      kind is the most specific word said: a vaccine booster, a procedure, a return, a result, a call.
// One follow-up per kind and interval.

import { intervalsIn } from '../../language/intervals.ts';
import { readAmount } from '../../language/spoken-numbers.ts';
import type { FollowUpKind } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

const cue = (kind: FollowUpKind, list: string[]) => list.map((phrase) => [phrase, kind] as const);

/** Words that make an interval a follow-up, with the kind they say. */
// biome-ignore format: a table reads better packed
const CUES = new PhraseTable<FollowUpKind>([
  ...cue('recheck', [
    'retorno', 'retornar', 'retorne', 'retornamos', 'retorna', 'revisao', 'reavaliacao', 'reavaliar', 'reavaliamos', 'reavalio',
    'reavalia', 'voltar', 'volta', 'volte', 'voltem', 'volto', 'voltamos', 'trazer de novo', 'trazer novamente', 'traz de novo',
    'traga de novo', 'nova consulta', 'consulta de retorno', 'consulta de revisao', 'recheck', 'controle', 'acompanhamento',
    'nos vemos', 'a gente se ve', 'ver ele de novo', 'ver ela de novo', 'ver de novo', 'quero ver', 'vejo ele', 'vejo ela',
    'te vejo', 'passo ai', 'passo la', 'venho', 'venho ver', 'vou ver', 'quero rever', 'rever', 'reavaliacao clinica',
    'check up', 'checkup', 'consulta de controle', 'nova avaliacao', 'traz ele', 'traz ela', 'traga ele', 'traga ela', 'trazer ele',
    'trazer ela', 'tragam ele', 'tragam ela', 'de volta', 'pra gente ver', 'para a gente ver', 'pra gente reavaliar', 'pra reavaliar',
    'para reavaliar', 'me traz', 'trazer aqui', 'traz aqui', 'traga aqui', 'passar aqui', 'passa aqui', 'vem aqui', 'vir aqui',
    'aparece aqui', 'a gente reve', 'reve', 'revejo', 'revemos', 'passo de novo', 'volto de novo', 'venho de novo', 'eu passo', 'pra ver como', 'pra ver as', 'pra ver os',
    'curativo', 'troca de curativo', 'trocar o curativo', 'reconsulta', 'revisita', 'visita', 'nova visita', 'te espero', 'espero voces', 'espero ele', 'espero ela',
  ]),
  ...cue('vaccine_booster', [
    'reforco', 'dose de reforco', 'segunda dose', 'terceira dose', 'quarta dose', 'proxima dose', 'proxima vacina', 'revacinar',
    'revacinacao', 'reforco da vacina', 'vacina de novo', 'segunda da', 'terceira da',
  ]),
  ...cue('exam_result', [
    'resultado', 'resultados', 'laudo', 'laudos', 'trazer os exames', 'trazer o exame', 'trazer o resultado', 'trazer os resultados',
    'buscar o resultado', 'quando sair o resultado', 'sai o resultado', 'fica pronto', 'ficam prontos', 'fica pronta', 'sai',
    'saem', 'chega o resultado', 'devolutiva',
  ]),
  ...cue('procedure', [
    'cirurgia', 'castracao', 'castrar', 'procedimento', 'pontos', 'tartarectomia', 'limpeza de tartaro', 'profilaxia dentaria',
    'orquiectomia', 'ovariohisterectomia', 'ovh', 'extracao', 'drenagem',
    'sedacao', 'internacao', 'biopsia', 'endoscopia', 'casqueamento', 'ferrageamento', 'sonda', 'dreno', 'gesso', 'tala',
    'bandagem', 'nodulectomia', 'mastectomia', 'enucleacao', 'amputacao', 'desgaste', 'eutanasia',
  ]),
  ...cue('other', [
    'me liga', 'ligar', 'ligue', 'liga', 'ligo', 'telefonar', 'entrar em contato', 'entro em contato', 'dar noticias',
    'mandar noticias', 'mandar foto', 'mandar mensagem', 'manda mensagem', 'mando', 'me manda', 'aviso', 'me avisa', 'avisar',
    'mando por mensagem', 'me chama', 'chama', 'me manda mensagem', 'me liga', 'mandar video', 'manda foto', 'manda video',
    'me atualiza', 'me da noticias', 'whatsapp', 'zap', 'me mande',
  ]),
]);
/** A vaccine named in an interval's clause makes it a booster ("a quádrupla felina a gente faz daqui a um mês"). */
export type VaccineAt = (at: number) => boolean;
/** The most specific kind said wins over a plain return said with it. */
const PRECEDENCE: FollowUpKind[] = ['vaccine_booster', 'procedure', 'recheck', 'exam_result', 'other'];

/** After a condition, the words that bring the animal back (recheck) or ask for a call (other). */
// biome-ignore format: a table reads better packed
const CONDITIONAL = new PhraseTable<FollowUpKind>([
  ...cue('recheck', [
    'traz', 'traga', 'tragam', 'trazer', 'me traz', 'traz ele', 'traz ela', 'volta aqui', 'volta antes', 'voltar antes',
    'voltar aqui', 'volte aqui', 'volte antes', 'vem direto', 'vem pra ca', 'vem aqui', 'venha', 'venham', 'retorna', 'retornar',
    'retorne', 'procure', 'procurar', 'procura', 'traz correndo', 'corre pra ca', 'vem correndo',
  ]),
  ...cue('other', [
    'me liga', 'liga', 'ligue', 'me ligar', 'ligar', 'me avisa', 'avisa', 'avise', 'me avise', 'me chama', 'chama', 'me chame',
    'entrar em contato', 'entre em contato', 'me manda', 'manda mensagem', 'mandar mensagem', 'me mande', 'me telefona',
  ]),
]);
// biome-ignore format: a table reads better packed
const CONDITION_STARTS = new Set(['se', 'caso']);
/** "qualquer coisa, me liga", "qualquer alteração, traz": a condition said without "se". */
const ANY_THING = new Set(['coisa', 'alteracao', 'problema', 'piora', 'sinal', 'intercorrencia', 'mudanca', 'novidade']);
/** How far after "se" the word that brings the animal back may be said. */
const CONDITION_REACH = 22;

// biome-ignore format: a table reads better packed
const UNIT_DAYS: Record<string, number> = {
  dia: 1, dias: 1, semana: 7, semanas: 7, quinzena: 15, quinzenas: 15, mes: 30, meses: 30, ano: 365, anos: 365, hora: 1 / 24, horas: 1 / 24, h: 1 / 24,
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
  [['daqui', 'um', 'mes'], 30],
];
/** Words an interval is said after ("em", "daqui a", "dentro de", "para daqui a"). */
// biome-ignore format: a table reads better packed
const LEADS = new Set(['em', 'daqui', 'a', 'dentro', 'apos', 'depois', 'uns', 'umas', 'cerca', 'prazo', 'maximo', 'para', 'pra', 'so', 'de']);

export interface Due {
  days: number;
  first: number;
  end: number;
}

// biome-ignore format: a table reads better packed
const MONTHS: Record<string, number> = {
  janeiro: 1, fevereiro: 2, marco: 3, abril: 4, maio: 5, junho: 6, julho: 7, agosto: 8, setembro: 9, outubro: 10, novembro: 11, dezembro: 12,
};
// biome-ignore format: a table reads better packed
const WEEKDAYS: Record<string, number> = { domingo: 0, segunda: 1, terca: 2, quarta: 3, quinta: 4, sexta: 5, sabado: 6 };

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/**
 * A date said: "dia 20 de março", "no dia 5", "20/03", "na segunda-feira", "sexta que vem": the days
 * from the visit to its next occurrence after the visit (a date already past this year is next year's).
 */
function dateAt(words: readonly string[], at: number, visitDate: string): Due | null {
  const visit = dayNumber(visitDate);
  if (!Number.isFinite(visit)) return null;
  const [year, month, day] = visitDate.split('-').map(Number) as [number, number, number];
  const daysTo = (y: number, m: number, d: number) => {
    const target = Date.UTC(y, m - 1, d) / DAY_MS;
    // An impossible date ("31 de fevereiro") rolls over; it is not a date said.
    if (new Date(target * DAY_MS).getUTCDate() !== d) return null;
    return target - visit;
  };
  // Weekdays: "segunda-feira", "na sexta", "sábado que vem" (not "segunda dose").
  const weekday = WEEKDAYS[words[at] ?? ''];
  if (weekday !== undefined) {
    const led = ['na', 'no', 'ate', 'proxima', 'proximo', 'nesta', 'neste', 'essa', 'esse', 'nessa', 'nesse'].includes(words[at - 1] ?? '');
    const feira = words[at + 1] === 'feira';
    if (!feira && !(led && !['dose', 'aplicacao', 'vez', 'da', 'do', 'semana'].includes(words[at + 1] ?? ''))) return null;
    const end = at + (feira ? 2 : 1);
    const today = new Date(visit * DAY_MS).getUTCDay();
    const ahead = (weekday - today + 7) % 7 || 7;
    return { days: ahead, first: at, end: words[end] === 'que' && words[end + 1] === 'vem' ? end + 2 : end };
  }
  // "20/03", "dia 20/03"
  const slashed = /^(\d{1,2})\/(\d{1,2})$/.exec(words[at] ?? '');
  if (slashed && (words[at - 1] === 'dia' || words[at - 1] === 'em' || words[at - 1] === 'ate')) {
    const [d, m] = [Number(slashed[1]), Number(slashed[2])];
    if (m < 1 || m > 12) return null;
    let days = daysTo(year, m, d);
    if (days !== null && days <= 0) days = daysTo(year + 1, m, d);
    return days === null ? null : { days, first: at, end: at + 1 };
  }
  // "dia 20 de março", "dia 5", "20 de março"
  const number = readAmount(words as string[], at);
  if (!number || !Number.isInteger(number.value) || number.value < 1 || number.value > 31) return null;
  const monthSaid = words[number.end] === 'de' ? MONTHS[words[number.end + 1] ?? ''] : undefined;
  if (monthSaid !== undefined) {
    let days = daysTo(year, monthSaid, number.value);
    if (days !== null && days <= 0) days = daysTo(year + 1, monthSaid, number.value);
    return days === null ? null : { days, first: at, end: number.end + 2 };
  }
  if (words[at - 1] !== 'dia') return null;
  let days = number.value > day ? daysTo(year, month, number.value) : null;
  if (days === null) days = month === 12 ? daysTo(year + 1, 1, number.value) : daysTo(year, month + 1, number.value);
  return days === null ? null : { days, first: at, end: number.end };
}

/** "em 15 dias", "daqui a duas semanas", "48 horas", "no mês que vem", "amanhã", "dia 20 de março", starting at `at`. */
export function dueAt(words: readonly string[], at: number, visitDate?: string): Due | null {
  for (const [phrase, days] of FIXED) {
    if (phrase.every((word, i) => words[at + i] === word)) return { days, first: at, end: at + phrase.length };
  }
  if (visitDate !== undefined) {
    const date = dateAt(words, at, visitDate);
    if (date) return date;
  }
  const number = readAmount(words as string[], at);
  if (!number || number.value <= 0) return null;
  // "em 10 a 14 dias", "em dez ou quinze dias": the earliest, in the unit said after the range.
  let unitAt = number.end;
  if (words[unitAt] === 'a' || words[unitAt] === 'ou') {
    const upper = readAmount(words as string[], unitAt + 1);
    if (upper && upper.value > number.value && UNIT_DAYS[words[upper.end] ?? ''] !== undefined) unitAt = upper.end;
  }
  const unit = UNIT_DAYS[words[unitAt] ?? ''];
  if (unit === undefined) return null;
  const before = words[at - 1] ?? '';
  const twoBefore = words[at - 2] ?? '';
  // Said after these, the number is not a time to come back: "por cinco dias", "há dez dias", "a cada 12 horas",
  // "com uns quatro meses" (an age), "de quatro anos".
  if (!LEADS.has(before) && !CUES.at(words, at - 1)) return null;
  if (before === 'de' && !['dentro', 'depois'].includes(twoBefore)) return null;
  if (['uns', 'umas', 'mais'].includes(before) && ['com', 'por', 'durante', 'ha', 'faz', 'de'].includes(twoBefore)) return null;
  if (['a', 'para', 'pra'].includes(before) && ['cada', 'ate'].includes(twoBefore)) return null;
  if (['atras', 'de'].includes(words[unitAt + 1] ?? '') && words[unitAt + 2] !== 'tratamento') return null;
  let value = number.value;
  let end = unitAt + 1;
  // "um mês e meio"
  if (words[end] === 'e' && (words[end + 1] === 'meio' || words[end + 1] === 'meia')) {
    value += 0.5;
    end += 2;
  }
  const days = unit < 1 ? Math.ceil(value * unit) : Math.round(value * unit);
  return { days, first: at, end };
}

export interface FoundFollowUp {
  kind: FollowUpKind;
  dueInDays: number | null;
  used: number[];
  /** The words of its clause [first, end). */
  first: number;
  end: number;
  /** From its first follow-up word or interval on, an exam named is what the return is for, not ordered now. */
  purposeFrom: number;
}

/** How far before an interval its clause reaches, and after it (up to a comma). */
const BEFORE = 12;
const AFTER = 14;

function conditionalFollowUps(w: Words, taken: boolean[], drugAt: (at: number) => boolean): FoundFollowUp[] {
  const { words } = w;
  const found: FoundFollowUp[] = [];
  for (let at = 0; at < words.length; at++) {
    const reversed = reversedCondition(w, at);
    if (reversed) {
      if (range(reversed.first, reversed.end).some((k) => taken[k])) continue;
      for (let k = reversed.first; k < reversed.end; k++) taken[k] = true;
      found.push({ ...reversed, dueInDays: null, used: range(reversed.first, reversed.end), purposeFrom: reversed.end });
      at = reversed.end - 1;
      continue;
    }
    if (!CONDITION_STARTS.has(words[at]!) && !(words[at] === 'qualquer' && ANY_THING.has(words[at + 1] ?? ''))) continue;
    // "ou antes se não voltar a fazer cocô": a return said before, sooner on a condition.
    const sooner = words[at - 1] === 'antes' && (words[at - 2] === 'ou' || w.commaBefore[at - 1]);
    let hit: { kind: FollowUpKind; first: number; end: number } | null = null;
    let end = at + 1;
    for (let k = at + 1; k < Math.min(words.length, at + CONDITION_REACH); k++) {
      if (w.breakBefore[k]) break;
      end = k + 1;
      const said = CONDITIONAL.at(words, k);
      // "voltar a comer" is doing again, not coming back.
      if (said && !(['volta', 'voltar', 'volte'].includes(words[k]!) && words[said.end] === 'a')) {
        hit = { kind: said.value, first: k, end: said.end };
        break;
      }
    }
    if (!hit && !sooner) continue;
    // "Se tiver crise ..., diazepam via retal ... e vem direto pra clínica": what to give at home, not a return.
    if (hit && range(at, hit.first).some(drugAt)) continue;
    // "Se tá tudo bem, volta em uma semana": an interval after the word is a dated return (the second pass).
    if (hit && startsDue(w, hit.end)) continue;
    const first = sooner ? at - (words[at - 2] === 'ou' ? 2 : 1) : at;
    const last = hit ? hit.end : end;
    for (let k = first; k < last; k++) taken[k] = true;
    found.push({ kind: hit?.kind ?? 'recheck', dueInDays: null, used: range(first, last), first, end: last, purposeFrom: last });
    at = last - 1;
  }
  return found;
}

/**
 * A call or a return asked for first, its condition after: "me manda mensagem se tiver outra crise",
 * "me liga caso ele não coma", "traz ele se a ferida abrir". Not a dated one ("me liga em dois dias se ...").
 */
function reversedCondition(w: Words, at: number): { kind: FollowUpKind; first: number; end: number } | null {
  const { words } = w;
  const said = CONDITIONAL.at(words, at);
  if (!said || !['me', 'traz', 'traga', 'tragam'].includes(words[at]!)) return null;
  for (let k = said.end; k < Math.min(words.length, said.end + 4); k++) {
    if (w.breakBefore[k]) return null;
    if (CONDITION_STARTS.has(words[k]!)) {
      if (startsDue(w, said.end)) return null;
      let end = k + 1;
      while (end < Math.min(words.length, k + 10) && !w.breakBefore[end] && !w.commaBefore[end]) end++;
      return { kind: said.value, first: at, end };
    }
  }
  return null;
}

/** An interval within the next few words ("volta em uma semana", "volta daqui a dez dias"). */
function startsDue(w: Words, at: number): boolean {
  for (let k = at; k < Math.min(w.words.length, at + 4) && !w.breakBefore[k]; k++) if (dueAt(w.words, k, '2000-01-01')) return true;
  return false;
}

/** A word that opens a follow-up ("retorno", "reforço", ...) at `at`. */
export function followUpCueAt(words: readonly string[], at: number): boolean {
  return CUES.at(words, at) !== null;
}

export function findFollowUps(
  w: Words,
  visitDate: string,
  vaccineAt: VaccineAt,
  drugAt: (at: number) => boolean,
  examAt: (at: number) => boolean = () => false,
): FoundFollowUp[] {
  const { words } = w;
  const taken = new Array<boolean>(words.length).fill(false);
  const found = conditionalFollowUps(w, taken, drugAt);
  // A dosing interval is not a time to come back ("de doze em doze horas").
  const schedule = new Array<boolean>(words.length).fill(false);
  for (const interval of intervalsIn(words)) for (let k = interval.first; k < interval.end; k++) schedule[k] = true;

  const dues: Due[] = [];
  for (let k = 0; k < words.length; k++) {
    if (taken[k] || schedule[k]) continue;
    const due = dueAt(words, k, visitDate);
    // "quatro a seis horas depois do comprimido", "dez dias após a cirurgia": a time from an event, not from today.
    const fromEvent =
      due !== null &&
      !w.breakBefore[due.end] &&
      ['depois', 'apos', 'antes'].includes(words[due.end] ?? '') &&
      ['do', 'da', 'de', 'dos', 'das', 'o', 'a'].includes(words[due.end + 1] ?? '');
    if (due && fromEvent) k = due.end - 1;
    else if (due) {
      dues.push(due);
      k = due.end - 1;
    }
  }
  for (const [i, due] of dues.entries()) {
    // The clause: back to the interval before or the sentence's start (past a one- or two-word
    // heading such as "Retorno:"), forward to a comma or the next interval.
    let first = due.first;
    const floor = Math.max(i > 0 ? dues[i - 1]!.end : 0, due.first - BEFORE);
    while (first > floor && !taken[first - 1]) {
      if (w.breakBefore[first] && !isHeadingBefore(w, first)) break;
      first--;
    }
    let end = due.end;
    const ceiling = Math.min(words.length, i + 1 < dues.length ? dues[i + 1]!.first : words.length, due.end + AFTER);
    while (end < ceiling && !w.commaBefore[end] && !taken[end]) end++;
    let read = clauseKinds(w, first, end, due, vaccineAt);
    // "Daqui a 6 meses, fazer o check-up": an interval that opens its sentence is read past its comma.
    // "Quando terminar o pantoprazol, daqui a dez dias, traz ele ...": an interval set off by commas too.
    const setOff = w.commaBefore[leadStart(words, due.first, first)] === true && w.commaBefore[end] === true;
    if (
      read.kinds.length === 0 &&
      read.headingKinds.length === 0 &&
      (first === due.first || leadStart(words, due.first, first) === first || setOff)
    ) {
      let further = end;
      while (further < ceiling && !w.breakBefore[further] && !taken[further]) further++;
      if (further > end) {
        end = further;
        read = clauseKinds(w, first, end, due, vaccineAt);
      }
    }
    // "Curva glicêmica aqui na clínica daqui a uma semana", "Nova chapa em oito semanas": an exam
    // said with a time to come is done at a return.
    if (read.kinds.length === 0 && read.headingKinds.length === 0) {
      const exam = range(first, end).find((k) => examAt(k) && (k < due.first || k >= due.end));
      if (exam !== undefined) {
        read.kinds.push('recheck');
        read.used.push(exam);
      }
    }
    const { kinds, headingKinds, used } = read;
    if (kinds.length === 0) kinds.push(...headingKinds);
    if (kinds.length === 0) continue;
    used.push(...range(leadStart(words, due.first, first), due.end));
    const kind = PRECEDENCE.find((candidate) => kinds.includes(candidate))!;
    found.push({ kind, dueInDays: due.days, used, first, end, purposeFrom: Math.min(due.first, ...used) });
  }
  return dedupe(found.sort((a, b) => a.first - b.first));
}

/** The follow-up words of a clause, those of a heading before it apart, and the words they are. */
function clauseKinds(w: Words, first: number, end: number, due: Due, vaccineAt: VaccineAt) {
  const { words } = w;
  const kinds: FollowUpKind[] = [];
  const headingKinds: FollowUpKind[] = [];
  const used: number[] = [];
  // Where the heading before the clause ends ("Retorno: resultados em sete dias"): its word counts only when the clause says none.
  let bodyStart = first;
  for (let k = first + 1; k <= due.first; k++) if (w.breakBefore[k]) bodyStart = k;
  for (let k = first; k < end; ) {
    if (k >= due.first && k < due.end) {
      k = due.end;
      continue;
    }
    const hit = CUES.at(words, k);
    if (hit && hit.end <= end && !(['volta', 'voltar', 'volte'].includes(words[k]!) && words[hit.end] === 'a' && hit.end !== due.first)) {
      (k < bodyStart ? headingKinds : kinds).push(hit.value);
      used.push(...range(k, hit.end));
      k = hit.end;
      continue;
    }
    if (vaccineAt(k)) {
      kinds.push('vaccine_booster');
      used.push(k);
    }
    k++;
  }
  return { kinds, headingKinds, used };
}

/** Is the sentence before `at` a heading of one or two words ("Retorno:", "Seguimento.")? */
function isHeadingBefore(w: Words, at: number): boolean {
  let k = at - 1;
  while (k > 0 && !w.breakBefore[k] && at - k <= 2) k--;
  return at - k <= 2 && (k === 0 || w.breakBefore[k] === true) && CUES.at(w.words, k) !== null;
}

/** "em", "daqui a", "dentro de" before an interval belong to its words. */
function leadStart(words: readonly string[], at: number, limit: number): number {
  let k = at;
  while (
    k > limit &&
    k > at - 3 &&
    ['em', 'daqui', 'a', 'dentro', 'de', 'apos', 'no', 'na', 'uns', 'umas', 'cerca', 'para', 'pra'].includes(words[k - 1]!)
  )
    k--;
  return k;
}

/** The same follow-up said twice ("retorno em 15 dias ... então nos vemos em 15 dias") is one. */
function dedupe(found: FoundFollowUp[]): FoundFollowUp[] {
  const kept: FoundFollowUp[] = [];
  for (const item of found) {
    if (item.dueInDays !== null && kept.some((other) => other.kind === item.kind && other.dueInDays === item.dueInDays)) continue;
    kept.push(item);
  }
  return kept;
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
