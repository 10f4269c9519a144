// Vaccines given in this visit or scheduled: a vaccine's name (or "vacina" with the disease) with
// an administration said in its sentence ("apliquei a V10", "foi aplicada a antirrábica", "vou
// aplicar a primeira dose hoje") or a scheduling ("a terceira dose ... ficam pra daqui a 21 dias",
// "a antirrábica a gente faz com quatro meses", "reforço em trinta dias"), never a vaccine the
// animal had before ("já tomou a V10 ano passado", "vacinas em dia") nor one declined. Vaccines
// named together ("apliquei a V5 felina, a vacina de FeLV e a antirrábica") share what is said of
// them. A vaccine given now with its booster scheduled in the same breath is two items. One item
// per code and status.

import type { VaccineCode } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

type Code = VaccineCode | 'polyvalent';

const vaccine = (code: Code, list: string[]) => list.map((phrase) => [phrase, code] as const);

// biome-ignore format: a table reads better packed
const NAMES = new PhraseTable<Code>([
  ...vaccine('v8_v10', [
    'v8', 'v10', 'v11', 'v 8', 'v 10', 'v 11', 'v7', 'v oito', 'v dez', 'v onze', 'octupla', 'decupla', 'vacina oito', 'vacina dez',
    'multipla canina', 'polivalente canina', 'vanguard plus', 'recombitek', 'duramune', 'nobivac dhppi', 'v8 canina', 'v10 canina', 'eurican', 'vanguard',
  ]),
  ...vaccine('feline_polyvalent', [
    'v3', 'v4', 'v5', 'v 3', 'v 4', 'v 5', 'v tres', 'v quatro', 'v cinco', 'triplice felina', 'quadrupla felina', 'quintupla felina',
    'polivalente felina', 'v3 felina', 'v4 felina', 'v5 felina', 'quadrupla', 'quintupla', 'triplice', 'felocell', 'purevax', 'fel o vax', 'quadricat',
  ]),
  ...vaccine('polyvalent', ['polivalente', 'multipla', 'vacina polivalente', 'vacina multipla', 'vacina anual', 'vacina completa']),
  ...vaccine('rabies', [
    'antirrabica', 'anti rabica', 'antirabica', 'vacina da raiva', 'vacina de raiva', 'vacina contra raiva', 'vacina contra a raiva',
    'vacina antirrabica', 'raiva', 'contra raiva', 'contra a raiva', 'rabisin', 'defensor', 'raivacel', 'nobivac raiva', 'raiva bovina',
  ]),
  ...vaccine('kennel_cough', [
    'tosse dos canis', 'tosse de canil', 'tosse dos canil', 'gripe canina', 'vacina da gripe', 'vacina de gripe', 'traqueobronquite',
    'traqueobronquite infecciosa', 'bordetella', 'bronchi shield', 'bronchiguard', 'intranasal', 'gripe', 'da gripe', 'primeira da gripe', 'vacina intranasal', 'pneumodog', 'nobivac kc intranasal', 'vacina da tosse', 'vacina de tosse', 'nobivac kc',
  ]),
  ...vaccine('giardia', ['giardia', 'giardiavax', 'vacina da giardia', 'vacina de giardia', 'contra giardia']),
  ...vaccine('leishmaniasis', ['leishmaniose', 'leish tec', 'leishtec', 'vacina da leishmaniose', 'vacina de leishmaniose', 'vacina contra leishmaniose']),
  ...vaccine('felv', ['felv', 'leucemia felina', 'vacina da felv', 'vacina de felv', 'vacina contra felv']),
  ...vaccine('equine_influenza', ['influenza equina', 'influenza', 'gripe equina', 'vacina da influenza', 'vacina de influenza', 'vacina contra influenza']),
  ...vaccine('tetanus', ['tetano', 'antitetanica', 'vacina do tetano', 'vacina de tetano', 'vacina contra tetano', 'vacina antitetanica', 'contra tetano', 'contra o tetano']),
  ...vaccine('other', [
    'clostridiose', 'clostridioses', 'polivalente contra clostridioses', 'polivalente clostridial', 'contra clostridioses',
    'aftosa', 'brucelose', 'b19', 'rb51', 'encefalomielite', 'herpesvirus equino', 'rinopneumonite', 'leptospirose', 'lepto',
    'carbunculo', 'botulismo', 'ibr', 'bvd', 'papilomatose', 'vacina de clostridio', 'clostridio', 'garrotilho', 'adenite',
    'mixomatose', 'doenca hemorragica', 'coronavirus', 'pneumonia enzootica', 'newcastle', 'gumboro', 'bouba', 'marek',
    'coriza', 'clamidiose', 'ectima', 'linfadenite', 'vacina contra mastite', 'cinomose', 'vacina de cinomose', 'vacina da cinomose', 'vacina contra cinomose', 'raiva e cinomose',
  ]),
]);
/** Names that are a vaccine only beside "vacina", a dose word or another vaccine (a disease otherwise). */
// biome-ignore format: a table reads better packed
const NEEDS_VACCINE_WORD = new Set<Code>(['rabies', 'giardia', 'leishmaniasis', 'felv', 'equine_influenza', 'tetanus', 'other', 'kennel_cough', 'polyvalent', 'feline_polyvalent']);
// biome-ignore format: a table reads better packed
const VACCINE_WORDS = new Set([
  'vacina', 'vacinas', 'vacinar', 'vacinei', 'vacinamos', 'vacinado', 'vacinada', 'vacinadas', 'vacinados', 'dose', 'reforco',
  'imunizacao', 'vacinacao', 'revacinar', 'revacinacao', 'subcutanea', 'subcutaneas',
]);
/** Vaccine names that never mean anything else. */
const ALWAYS =
  /^(antirrabica|antirabica|octupla|decupla|antitetanica|leishtec|giardiavax|rabisin|felocell|purevax|recombitek|duramune|eurican|vanguard|raivacel|quadricat|bronchiguard)$/;

const phrases = (list: string[]) => new PhraseTable<true>(list.map((phrase) => [phrase, true] as const));
// biome-ignore format: a table reads better packed
const ADMINISTERED = phrases([
  'a gente fez', 'a gente aplicou', 'a gente vacinou', 'apliquei', 'aplicamos', 'aplicada', 'aplicado', 'aplicadas', 'aplicados', 'foi aplicada', 'foi aplicado', 'vacinei', 'vacinamos',
  'vacinado hoje', 'vacinada hoje', 'tomou hoje', 'tomou agora', 'tomou aqui', 'fizemos', 'fiz', 'feita', 'feito', 'feitas',
  'foi feita', 'recebeu hoje', 'recebeu agora', 'vou aplicar', 'vamos aplicar', 'vou fazer agora', 'vamos fazer agora',
  'aplicar agora', 'aplicar hoje', 'fazer agora', 'fazer hoje', 'vou fazer hoje', 'vamos fazer hoje', 'ja apliquei',
  'ja aplicamos', 'acabei de aplicar', 'administrei', 'administrada', 'administramos', 'vou vacinar', 'vamos vacinar',
  'vacinar agora', 'vacinar hoje', 'ja dei', 'dei', 'acabei de dar', 'demos', 'ja fiz', 'ja fizemos', 'aplicada hoje', 'aplicado hoje', 'aplicadas hoje', 'aplicados hoje', 'estou aplicando', 'aplicando', 'dose aplicada', 'aplicacao da', 'aplicacao de',
]);
// biome-ignore format: a table reads better packed
const SCHEDULED = phrases([
  'agendar', 'agendada', 'agendado', 'agendei', 'agendamos', 'marcar', 'marcada', 'marquei', 'proxima', 'proximo', 'segunda dose',
  'terceira dose', 'quarta dose', 'segunda da', 'terceira da', 'reforco', 'vai tomar', 'tem que tomar', 'precisa tomar',
  'vai precisar', 'deve tomar', 'falta', 'faltam', 'no retorno', 'daqui', 'mes que vem', 'ano que vem', 'semana que vem',
  'atualizar', 'a gente faz', 'gente faz', 'vamos fazer', 'vou fazer', 'vai fazer', 'ficam pra', 'fica pra', 'ficam para',
  'fica para', 'iniciar', 'comecar', 'protocolo', 'revacinar', 'revacinacao', 'anual', 'anualmente', 'precisa fazer',
  'tem que fazer', 'programar', 'programada', 'prescrevo', 'indico', 'recomendo', 'quando ele estiver', 'quando ela estiver',
  'quando sarar', 'quando ele sarar', 'quando ela sarar', 'depois que', 'em',
]);
/** The vaccine is the animal's past, or declined: "já tomou", "em dia", "atrasada", "não indicada". */
// biome-ignore format: a table reads better packed
const PAST = phrases([
  'ja tomou', 'tomou', 'tomava', 'tinha tomado', 'em dia', 'atrasada', 'atrasado', 'atrasadas', 'vencida', 'vencido', 'ano passado',
  'mes passado', 'carteira', 'carteirinha', 'nunca tomou', 'nunca foi', 'nao tomou', 'nao sei se', 'vacinado', 'vacinada',
  'vacinados', 'foi vacinado', 'foi vacinada', 'recebeu', 'ja fez', 'fez', 'completou', 'tomaram', 'tem as vacinas',
  'anterior', 'quando filhote', 'na epoca', 'nao quis', 'recusou', 'nao autorizou', 'preferiu nao', 'nao vai', 'nao vamos',
  'nao precisa', 'nao indicada', 'nao indicado', 'nao recomendo', 'nao vou', 'contraindicada', 'contraindicado', 'no pet shop',
  'em outra clinica',
  'foi em', 'foi no', 'foi na', 'foi ha', 'foi faz', 'tomou em', 'fez em', 'tomou no', 'tomou na',
]);

export interface FoundVaccine {
  code: VaccineCode;
  status: 'administered' | 'prescribed';
  used: number[];
}

export interface VaccineMention {
  code: Code;
  first: number;
  end: number;
}

export function vaccineMentions(w: Words): VaccineMention[] {
  const { words } = w;
  const found: VaccineMention[] = [];
  for (let at = 0; at < words.length; ) {
    const hit = NAMES.at(words, at);
    if (!hit) {
      at++;
      continue;
    }
    const near = (from: number, to: number) => {
      for (let k = Math.max(0, from); k < Math.min(words.length, to); k++) if (VACCINE_WORDS.has(words[k]!)) return true;
      return false;
    };
    const previous = found.at(-1);
    // "a primeira da gripe, intranasal": the same vaccine said again right after is one mention.
    if (previous && previous.code === hit.value && at - previous.end <= 1 && !w.breakBefore[at]) {
      previous.end = hit.end;
      at = hit.end;
      continue;
    }
    const listed = previous !== undefined && at - previous.end <= 4 && !range(previous.end, at + 1).some((k) => w.breakBefore[k]);
    const vNumber = words[at] === 'v' || /^v\d/.test(words[at]!);
    // "Apliquei a quíntupla", "vacinei com a da raiva": an administration said right before the name.
    let given = false;
    for (let k = Math.max(0, at - 5); k < at && !given; k++) {
      const cue = ADMINISTERED.at(words, k);
      given =
        cue !== null &&
        cue.end <= at &&
        at - cue.end <= 2 &&
        range(cue.end, at).every((j) => ['a', 'o', 'as', 'os', 'da', 'do', 'com'].includes(words[j]!));
    }
    if (
      !NEEDS_VACCINE_WORD.has(hit.value) ||
      ALWAYS.test(words[at]!) ||
      ['felina', 'canina'].includes(words[hit.end - 1]!) ||
      vNumber ||
      listed ||
      given ||
      near(at - 7, hit.end + 3)
    ) {
      found.push({ code: hit.value, first: at, end: hit.end });
    }
    at = hit.end;
  }
  return found;
}

const CAT = /\b(gato|gata|gatos|gatas|gatinho|gatinha|felino|felina|felinos|felinas|felv|fiv)\b/;
const DOG = /\b(cao|caes|cachorro|cachorra|cadela|canino|canina|cachorrinho|cachorrinha)\b/;

interface Said {
  administered: [number, number] | null;
  scheduled: [number, number] | null;
  /** The vaccine is the animal's past or declined, as said after the name or (when nothing is said after it) before it. */
  past: boolean;
  /** "reforço em trinta dias" after the vaccine: a booster scheduled as well. */
  booster: [number, number] | null;
}

/**
 * What the sentence around a vaccine says of it. An administration said anywhere in it counts;
 * otherwise what is said after the name wins over what is said before it ("não vou vacinar hoje,
 * a V10 fica para o retorno").
 */
function saidOf(w: Words, mention: VaccineMention): Said {
  const { words } = w;
  const before = { scheduled: null as [number, number] | null, past: false };
  const after = { scheduled: null as [number, number] | null, past: false };
  let administered: [number, number] | null = null;
  let booster: [number, number] | null = null;
  let from = mention.first;
  while (from > 0 && mention.first - from < 10 && !w.breakBefore[from]) from--;
  for (let k = from; k < Math.min(words.length, mention.end + 12); ) {
    if (k > mention.first && w.breakBefore[k]) break;
    if (k >= mention.first && k < mention.end) {
      k = mention.end;
      continue;
    }
    const hits = [
      ['administered', ADMINISTERED.at(words, k)],
      ['past', PAST.at(words, k)],
      ['scheduled', SCHEDULED.at(words, k)],
    ] as const;
    let best: (typeof hits)[number] | null = null;
    for (const hit of hits) if (hit[1] && (!best || hit[1].end > best[1]!.end)) best = hit;
    if (!best) {
      k++;
      continue;
    }
    const span: [number, number] = [k, best[1]!.end];
    const side = k < mention.first ? before : after;
    if (best[0] === 'administered') administered ??= span;
    else if (best[0] === 'past') side.past = true;
    else {
      side.scheduled ??= span;
      if (k >= mention.end && ['reforco', 'segunda', 'terceira', 'proxima'].includes(words[k]!)) booster ??= span;
    }
    k = span[1];
  }
  const decisive = after.scheduled || after.past ? after : before;
  return { administered, scheduled: decisive.scheduled, past: decisive.past, booster };
}

export function findVaccines(w: Words, mentions: VaccineMention[]): FoundVaccine[] {
  const joined = w.words.join(' ');
  const species = CAT.test(joined) ? 'feline' : DOG.test(joined) ? 'canine' : 'other';
  const saids = mentions.map((mention) => saidOf(w, mention));
  // Vaccines named together share what is said of them.
  const together = (i: number) => {
    const a = mentions[i]!;
    const b = mentions[i + 1]!;
    return b.first - a.end <= 6 && !range(a.end, b.first + 1).some((k) => w.breakBefore[k]);
  };
  for (let i = 1; i < saids.length; i++) {
    if (together(i - 1) && !saids[i]!.administered && !saids[i]!.scheduled) saids[i] = { ...saids[i - 1]!, booster: saids[i]!.booster };
  }
  const found = new Map<string, FoundVaccine>();
  const add = (code: VaccineCode, status: 'administered' | 'prescribed', used: number[]) => {
    const key = `${code}:${status}`;
    if (!found.has(key)) found.set(key, { code, status, used });
  };
  for (const [i, mention] of mentions.entries()) {
    const code: VaccineCode =
      mention.code === 'polyvalent'
        ? species === 'feline'
          ? 'feline_polyvalent'
          : species === 'canine'
            ? 'v8_v10'
            : 'other'
        : mention.code;
    const said = saids[i]!;
    const name = range(mention.first, mention.end);
    if (said.administered) {
      add(code, 'administered', [...range(...said.administered), ...name]);
      if (said.booster) add(code, 'prescribed', [...name, ...range(...said.booster)]);
    } else if (said.scheduled && !said.past) add(code, 'prescribed', [...range(...said.scheduled), ...name]);
  }
  return [...found.values()];
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
