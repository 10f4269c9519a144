// Vaccines given in this visit or scheduled: a vaccine's name (or "vacina" with the disease) with
// an administration said around it ("apliquei a V10", "foi aplicada a antirrábica", "vou aplicar
// agora") or a scheduling ("a segunda dose em 21 dias", "agendar a antirrábica"), never a vaccine
// the animal had before ("já tomou a V10 ano passado", "vacinas em dia"). One item per code and status.

import type { VaccineCode } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

type Code = VaccineCode | 'polyvalent';

const vaccine = (code: Code, list: string[]) => list.map((phrase) => [phrase, code] as const);

/** Names that are a vaccine by themselves. */
const NAMES = new PhraseTable<Code>([
  ...vaccine('v8_v10', ['v8', 'v10', 'v11', 'v 8', 'v 10', 'v7', 'octupla', 'decupla', 'v oito', 'v dez', 'vacina oito', 'vacina dez', 'multipla canina', 'polivalente canina']),
  ...vaccine('feline_polyvalent', ['v3', 'v4', 'v5', 'v 3', 'v 4', 'v 5', 'v tres', 'v quatro', 'v cinco', 'triplice felina', 'quadrupla felina', 'quintupla felina', 'polivalente felina', 'quadrupla', 'quintupla', 'triplice']),
  ...vaccine('polyvalent', ['polivalente', 'multipla', 'vacina polivalente', 'vacina multipla', 'vacina anual']),
  ...vaccine('rabies', ['antirrabica', 'anti rabica', 'antirabica', 'vacina da raiva', 'vacina de raiva', 'vacina contra raiva', 'vacina contra a raiva', 'vacina antirrabica', 'raiva']),
  ...vaccine('kennel_cough', ['tosse dos canis', 'tosse de canil', 'tosse dos canil', 'gripe canina', 'vacina da gripe', 'vacina de gripe', 'traqueobronquite', 'bordetella', 'bronchi shield', 'intranasal', 'vacina da tosse']),
  ...vaccine('giardia', ['giardia', 'giardiavax', 'vacina da giardia', 'vacina de giardia']),
  ...vaccine('leishmaniasis', ['leishmaniose', 'leish tec', 'leishtec', 'vacina da leishmaniose', 'vacina de leishmaniose', 'vacina contra leishmaniose']),
  ...vaccine('felv', ['felv', 'leucemia felina', 'vacina da felv', 'vacina de felv']),
  ...vaccine('equine_influenza', ['influenza equina', 'influenza', 'gripe equina', 'vacina da influenza']),
  ...vaccine('tetanus', ['tetano', 'antitetanica', 'vacina do tetano', 'vacina de tetano', 'vacina antitetanica']),
  ...vaccine('other', [
    'clostridiose', 'polivalente clostridial', 'aftosa', 'brucelose', 'b19', 'rb51', 'encefalomielite', 'herpesvirus', 'rinopneumonite',
    'leptospirose', 'lepto', 'carbunculo', 'botulismo', 'ibr', 'bvd', 'mastite', 'papilomatose', 'vacina de clostridio',
    'clostridio', 'garrotilho', 'adenite', 'mixomatose', 'doenca hemorragica', 'coronavirus', 'raiva bovina', 'pneumonia enzootica',
  ]),
]);
/** Names that are a vaccine only beside the word "vacina" or a dose word (a disease otherwise). */
const NEEDS_VACCINE_WORD = new Set<Code>(['rabies', 'giardia', 'leishmaniasis', 'felv', 'equine_influenza', 'tetanus', 'other', 'kennel_cough', 'polyvalent', 'feline_polyvalent']);
const VACCINE_WORDS = new Set(['vacina', 'vacinas', 'vacinar', 'vacinei', 'vacinamos', 'vacinado', 'vacinada', 'dose', 'reforco', 'imunizacao', 'vacinacao', 'revacinar', 'revacinacao']);
const STRONG_NAMES = new Set(['antirrabica', 'anti', 'antirabica', 'v8', 'v10', 'v11', 'v', 'v3', 'v4', 'v5', 'v7', 'octupla', 'decupla', 'leish', 'leishtec', 'giardiavax', 'antitetanica', 'bronchi', 'triplice', 'quadrupla', 'quintupla']);

const ADMINISTERED = new PhraseTable<true>(
  [
    'apliquei', 'aplicamos', 'aplicada', 'aplicado', 'foi aplicada', 'foi aplicado', 'vacinei', 'vacinamos', 'vacinado hoje',
    'vacinada hoje', 'tomou hoje', 'tomou agora', 'tomou aqui', 'fizemos', 'fiz', 'feita', 'feito', 'foi feita', 'recebeu hoje',
    'recebeu agora', 'vou aplicar', 'vamos aplicar', 'vou aplicar agora', 'vamos aplicar agora', 'vou fazer agora',
    'vamos fazer agora', 'aplicar agora', 'aplicar hoje', 'fazer agora', 'fazer hoje', 'vou fazer hoje', 'vamos fazer hoje',
    'ja apliquei', 'ja aplicamos', 'acabei de aplicar', 'administrei', 'administrada', 'administramos', 'vou vacinar',
    'vamos vacinar', 'vacinar agora', 'vacinar hoje', 'estou aplicando', 'aplicando', 'dose aplicada', 'aplicacao da',
    'aplicacao de',
  ].map((phrase) => [phrase, true] as const),
);
const SCHEDULED = new PhraseTable<true>(
  [
    'agendar', 'agendada', 'agendado', 'agendei', 'agendamos', 'marcar', 'marcada', 'marquei', 'proxima', 'proximo',
    'segunda dose', 'terceira dose', 'quarta dose', 'reforco', 'vai tomar', 'tem que tomar', 'precisa tomar', 'vai precisar',
    'deve tomar', 'falta', 'faltam', 'no retorno', 'daqui', 'mes que vem', 'ano que vem', 'semana que vem', 'atualizar',
    'fazer a', 'fazer o', 'vamos fazer', 'vou fazer', 'vai fazer', 'tomar a', 'tomar o', 'aplicar a', 'aplicar o', 'iniciar',
    'comecar', 'protocolo', 'revacinar', 'revacinacao', 'anual', 'anualmente', 'precisa fazer', 'tem que fazer', 'programar',
    'programada', 'prescrevo', 'indicada', 'indico', 'recomendo', 'em',
  ].map((phrase) => [phrase, true] as const),
);
/** Said with it, the vaccine is the animal's past: "já tomou", "em dia", "atrasada", "ano passado". */
const PAST = new PhraseTable<true>(
  [
    'ja tomou', 'tomou', 'tomava', 'tinha tomado', 'em dia', 'atrasada', 'atrasado', 'atrasadas', 'vencida', 'vencido', 'ultima',
    'ultimo', 'ano passado', 'mes passado', 'carteira', 'carteirinha', 'nunca tomou', 'nunca foi', 'nao tomou', 'nao sei se',
    'vacinado', 'vacinada', 'vacinados', 'foi vacinado', 'foi vacinada', 'recebeu', 'ja fez', 'fez', 'completou', 'completo',
    'tomaram', 'tem as vacinas', 'filhote tomou', 'anterior', 'quando filhote', 'na epoca', 'nao quis', 'recusou', 'nao autorizou',
    'preferiu nao', 'nao vai', 'nao vamos', 'nao precisa',
  ].map((phrase) => [phrase, true] as const),
);

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

export function vaccineMentions(words: readonly string[]): VaccineMention[] {
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
    const strong = STRONG_NAMES.has(words[at]!) && !(words[at] === 'v' && !/^(\d+|oito|dez|tres|quatro|cinco)$/.test(words[at + 1] ?? ''));
    const named = hit.end - at > 1 && words[at] === 'vacina';
    if (!NEEDS_VACCINE_WORD.has(hit.value) || strong || named || near(at - 4, hit.end + 2)) {
      found.push({ code: hit.value, first: at, end: hit.end });
    }
    at = hit.end;
  }
  return found;
}

const CAT = /\b(gato|gata|gatos|gatas|gatinho|gatinha|felino|felina|felinos|felinas|felv|fiv)\b/;

export function findVaccines(w: Words, mentions: VaccineMention[], joined: string): FoundVaccine[] {
  const { words } = w;
  const feline = CAT.test(joined);
  const found = new Map<string, FoundVaccine>();
  for (const mention of mentions) {
    const code: VaccineCode = mention.code === 'polyvalent' ? (feline ? 'feline_polyvalent' : 'v8_v10') : mention.code;
    const from = Math.max(0, mention.first - 8);
    const to = Math.min(words.length, mention.end + 10);
    let administered: [number, number] | null = null;
    let scheduled: [number, number] | null = null;
    let past = false;
    for (let k = from; k < to; ) {
      // A sentence mark ends what is said of this vaccine (before it: what is said of it starts after the mark).
      if (w.breakBefore[k] && k > mention.end) break;
      if (w.breakBefore[k] && k <= mention.first) {
        administered = scheduled = null;
        past = false;
      }
      if (k >= mention.first && k < mention.end) {
        k = mention.end;
        continue;
      }
      const hitAdmin = ADMINISTERED.at(words, k);
      const hitPast = PAST.at(words, k);
      const hitScheduled = SCHEDULED.at(words, k);
      const longest = [hitAdmin, hitPast, hitScheduled].reduce<{ end: number } | null>(
        (best, hit) => (hit && (!best || hit.end > best.end) ? hit : best),
        null,
      );
      if (!longest) {
        k++;
        continue;
      }
      if (longest === hitAdmin) administered ??= [k, longest.end];
      else if (longest === hitPast) past = true;
      else scheduled ??= [k, longest.end];
      k = longest.end;
    }
    const status = administered ? 'administered' : scheduled && !past ? 'prescribed' : null;
    if (status === null) continue;
    const cue = (administered ?? scheduled)!;
    const key = `${code}:${status}`;
    if (found.has(key)) continue;
    found.set(key, { code, status, used: [...range(cue[0], cue[1]), ...range(mention.first, mention.end)] });
  }
  return [...found.values()];
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
