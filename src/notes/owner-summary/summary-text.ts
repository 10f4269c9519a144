import type { Plan, PlanFollowUp } from '../store/plan.schemas.ts';
import { brDate, drugName, EXAM_WORDS, homeInstruction, plainDiagnosis, vaccineName } from './plain-words.ts';

// "Orientações ao tutor": the owner summary built from a completed note, deterministically (no
// language model): the same note always gives the same text, in well under a millisecond.

/** A WhatsApp utility message's limit, and so the summary's. */
export const SUMMARY_MAX_CHARACTERS = 1024;

/** What the summary is made of, read from the note (owner-summary/note-facts.ts). */
export interface SummaryFacts {
  tutorName: string | null;
  patientName: string;
  /** `YYYY-MM-DD`, or null for a note made before visit dates. */
  visitDate: string | null;
  /** The note's diagnosis section, as written; null when it has none or it is empty. */
  diagnosis: string | null;
  plan: Plan;
  /** Sentences of the note that tell the tutor when to come back at once (never invented). */
  warnings: string[];
  clinicName: string;
}

const REST_IN_RECORD = 'O restante das orientações está no prontuário da clínica.';
const CLOSING = 'Dúvidas? Responda esta mensagem.';

/** A block of the message; `keep` blocks are never dropped to fit (the instructions, the return). */
interface Block {
  text: string;
  keep: boolean;
}

export function buildSummaryText(facts: SummaryFacts): string {
  const greeting = facts.tutorName ? `Olá, ${firstName(facts.tutorName)}!` : 'Olá!';
  const visit = facts.visitDate ? ` em ${brDate(facts.visitDate)}` : '';
  const head = `${greeting} Orientações ao tutor da consulta de ${facts.patientName}${visit}.`;
  const footer = `${facts.clinicName}. ${CLOSING}`;
  // In the order they are dropped when the message is too long: the least needed at home first.
  const optional = {
    diagnosis: facts.diagnosis ? `O que encontramos: ${shortened(plainDiagnosis(facts.diagnosis), 300)}` : '',
    exams: examsBlock(facts.plan),
    vaccines: vaccinesBlock(facts.plan),
    warnings:
      facts.warnings.length > 0 ? `Procure a clínica antes do retorno: ${facts.warnings.map((w) => shortened(w, 200)).join(' ')}` : '',
  };
  const medications = medicationLines(facts.plan);
  const returnLine = returnBlock(facts.plan);
  const compose = (dropped: ReadonlySet<string>, meds: string[], rest: boolean): string => {
    const blocks: Block[] = [
      { text: head, keep: true },
      { text: dropped.has('diagnosis') ? '' : optional.diagnosis, keep: false },
      { text: meds.join('\n'), keep: true },
      { text: dropped.has('exams') ? '' : optional.exams, keep: false },
      { text: dropped.has('vaccines') ? '' : optional.vaccines, keep: false },
      { text: returnLine, keep: true },
      { text: dropped.has('warnings') ? '' : optional.warnings, keep: false },
      { text: rest ? REST_IN_RECORD : '', keep: true },
      { text: footer, keep: true },
    ];
    return blocks
      .map((block) => block.text)
      .filter(Boolean)
      .join('\n\n');
  };
  const dropped = new Set<string>();
  let text = compose(dropped, medications, false);
  for (const name of ['diagnosis', 'exams', 'vaccines', 'warnings'] as const) {
    if (text.length <= SUMMARY_MAX_CHARACTERS) return text;
    if (!optional[name]) continue;
    dropped.add(name);
    text = compose(dropped, medications, true);
  }
  // Still too long: as many medications as fit (found by bisection: a plan may hold a hundred), the others named by count.
  const home = facts.plan.medications.filter((item) => item.status === 'prescribed').length;
  const withKept = (kept: number) => compose(dropped, medicationLines(facts.plan, kept), true);
  if (text.length > SUMMARY_MAX_CHARACTERS && home > 1) {
    let fits = 0;
    let tooMany = home;
    while (tooMany - fits > 1) {
      const middle = Math.floor((fits + tooMany) / 2);
      if (withKept(middle).length <= SUMMARY_MAX_CHARACTERS) fits = middle;
      else tooMany = middle;
    }
    text = withKept(Math.max(fits, 1));
  }
  return text.length <= SUMMARY_MAX_CHARACTERS ? text : `${text.slice(0, SUMMARY_MAX_CHARACTERS - 1)}…`;
}

/** "Ana Paula Souza" → "Ana". */
export function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? name;
}

/** At most `max` characters, cut at a word with an ellipsis. */
function shortened(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2))}…`;
}

/** The home instructions, then what was done at the clinic today and what to stop. */
function medicationLines(plan: Plan, limit = Number.POSITIVE_INFINITY): string[] {
  const home = plan.medications.filter((item) => item.status === 'prescribed');
  const given = plan.medications.filter((item) => item.status === 'administered');
  const stopped = plan.medications.filter((item) => item.status === 'suspended');
  const lines: string[] = [];
  if (home.length > 0) lines.push('Medicamentos em casa:', ...home.slice(0, limit).map((item) => `- ${homeInstruction(item)}`));
  const left = home.length - Math.min(limit, home.length);
  if (left > 0) lines.push(`- e mais ${left} ${left === 1 ? 'medicamento' : 'medicamentos'} na receita`);
  if (given.length > 0) lines.push(`Aplicado na clínica hoje: ${names(given.map((item) => drugName(item.drug)))}.`);
  if (stopped.length > 0) lines.push(`Suspender: ${names(stopped.map((item) => drugName(item.drug)))}.`);
  return lines;
}

function examsBlock(plan: Plan): string {
  if (plan.exams.length === 0) return '';
  const exams = [...new Set(plan.exams.map((exam) => EXAM_WORDS[exam.code]))];
  const result = plan.follow_ups.find((item) => item.kind === 'exam_result' && item.due_date);
  const when = result?.due_date ? ` Resultado previsto para ${brDate(result.due_date)}.` : ' Aguarde o resultado ou traga-o no retorno.';
  return `Exames: ${names(exams)}.${when}`;
}

function vaccinesBlock(plan: Plan): string {
  const given = plan.vaccines.filter((item) => item.status === 'administered').map(vaccineName);
  const next = plan.vaccines.filter((item) => item.status === 'prescribed').map(vaccineName);
  const booster = plan.follow_ups.find((item) => item.kind === 'vaccine_booster' && item.due_date);
  const lines: string[] = [];
  if (given.length > 0) lines.push(`Vacinas aplicadas hoje: ${names([...new Set(given)])}.`);
  if (next.length > 0)
    lines.push(`Próxima dose: ${names([...new Set(next)])}${booster?.due_date ? ` em ${brDate(booster.due_date)}` : ''}.`);
  else if (booster?.due_date) lines.push(`Próxima dose: ${brDate(booster.due_date)}.`);
  return lines.join(' ');
}

/** The return: its date when the note gives one, else its words ("se não melhorar"). */
function returnBlock(plan: Plan): string {
  const returns = plan.follow_ups.filter((item) => item.kind === 'recheck' || item.kind === 'procedure' || item.kind === 'other');
  const dated = returns.find((item) => item.due_date);
  if (dated?.due_date) return `${label(dated)}: ${brDate(dated.due_date)}.`;
  const said = returns[0];
  return said ? `${label(said)}: ${shortened(said.text, 120)}` : '';
}

function label(item: PlanFollowUp): string {
  return item.kind === 'procedure' ? 'Procedimento marcado' : 'Retorno';
}

/** "a", "a e b", "a, b e c". */
function names(list: string[]): string {
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} e ${list.at(-1)}`;
}
