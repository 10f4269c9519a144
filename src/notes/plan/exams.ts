// Exams ordered or done in this visit: an exam's name with an order said around it ("vou pedir
// hemograma, bioquímico e ultrassom", "coletei sangue para hemograma", "raio-x de tórax hoje"),
// and not a result being discussed ("o hemograma de ontem mostrou anemia") nor an exam declined.
// One item per code.

import type { ExamCode } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

const exam = (code: ExamCode, list: string[]) => list.map((phrase) => [phrase, code] as const);

export const EXAMS = new PhraseTable<ExamCode>([
  ...exam('cbc', ['hemograma', 'hemograma completo', 'hemogramas', 'exame de sangue', 'exames de sangue', 'hemograma e plaquetas', 'contagem de plaquetas', 'hematocrito', 'pesquisa de hemoparasitas', 'esfregaco sanguineo']),
  ...exam('biochemistry', [
    'bioquimico', 'bioquimicos', 'bioquimica', 'bioquimica serica', 'perfil bioquimico', 'exames bioquimicos', 'exame bioquimico',
    'funcao renal', 'funcao hepatica', 'perfil renal', 'perfil hepatico', 'ureia e creatinina', 'ureia', 'creatinina', 'sdma',
    'alt e fa', 'enzimas hepaticas', 'glicemia', 'curva glicemica', 'frutosamina', 'eletrolitos', 'albumina', 'proteinas totais',
    'colesterol', 'triglicerides',
  ]),
  ...exam('urinalysis', ['urinalise', 'exame de urina', 'urina tipo um', 'urina tipo 1', 'eas', 'sumario de urina', 'relacao proteina creatinina urinaria', 'upc', 'cistocentese']),
  ...exam('fecal', ['parasitologico', 'parasitologico de fezes', 'coproparasitologico', 'exame de fezes', 'opg', 'contagem de ovos', 'coprologico', 'exame coproparasitologico']),
  ...exam('ultrasound', ['ultrassom', 'ultrassonografia', 'ultrasson', 'ultra som', 'ultra sonografia', 'usg', 'ultra', 'ecografia', 'ultrassom abdominal', 'ultrassonografia abdominal']),
  ...exam('radiograph', ['raio x', 'raios x', 'rx', 'radiografia', 'radiografias', 'radiografico', 'chapa', 'raio x de torax', 'radiografia de torax']),
  ...exam('cytology', ['citologia', 'citologico', 'citologia otologica', 'citologia auricular', 'paaf', 'puncao aspirativa', 'imprint', 'citologia de pele', 'citologia vaginal', 'raspado de pele', 'raspado cutaneo', 'tricograma']),
  ...exam('culture', ['cultura', 'cultura e antibiograma', 'antibiograma', 'urocultura', 'cultura fungica', 'cultura bacteriana', 'hemocultura', 'cultura com antibiograma']),
  ...exam('ecg', ['eletrocardiograma', 'ecg', 'eletro']),
  ...exam('echocardiogram', ['ecocardiograma', 'ecocardiografia', 'eco', 'ecocardio', 'ecodopplercardiograma']),
  ...exam('blood_pressure', ['pressao arterial', 'pressao', 'pressao sistolica', 'doppler']),
  ...exam('rapid_test', [
    'teste rapido', 'testes rapidos', 'snap', 'snap test', '4dx', 'snap 4dx', 'teste de cinomose', 'teste de parvovirose',
    'teste de parvo', 'teste de fiv e felv', 'fiv e felv', 'teste fiv felv', 'teste de giardia', 'teste de leishmaniose',
    'teste rapido de leishmaniose', 'teste de erliquiose', 'teste de fiv', 'teste de felv', 'teste do carrapato',
  ]),
  ...exam('pcr', ['pcr', 'pcr para', 'pcr de']),
  ...exam('histopathology', ['biopsia', 'histopatologico', 'histopatologia', 'exame histopatologico', 'biopsia incisional', 'biopsia excisional']),
  ...exam('other', [
    'tomografia', 'ressonancia', 'ressonancia magnetica', 'endoscopia', 'sorologia', 't4', 't4 livre', 'tsh', 'cortisol',
    'supressao com dexametasona', 'estimulacao com acth', 'teste de schirmer', 'fluoresceina', 'tonometria', 'lampada de wood',
    'mielograma', 'liquor', 'gasometria', 'coagulograma', 'teste de coagulacao', 'rinoscopia', 'otoscopia', 'cmt',
    'teste de tuberculina', 'tuberculinizacao', 'exame andrologico', 'brucelose',
  ]),
]);

const ORDER = new PhraseTable<true>(
  [
    'pedir', 'vou pedir', 'vamos pedir', 'peco', 'pedimos', 'pedi', 'pedido', 'solicitar', 'solicito', 'solicitei', 'solicitado',
    'solicitada', 'solicitamos', 'requisitar', 'requisito', 'requisitei', 'fazer', 'faz', 'faca', 'facam', 'fazemos', 'fiz',
    'fizemos', 'feito', 'feita', 'vou fazer', 'vamos fazer', 'vai fazer', 'precisa fazer', 'precisamos fazer', 'tem que fazer',
    'realizar', 'realizei', 'realizado', 'realizada', 'realizamos', 'coletar', 'coletei', 'coletamos', 'coletado', 'coletada',
    'colher', 'colhi', 'colhemos', 'colhido', 'colhida', 'coleta', 'coleta de', 'encaminhar', 'encaminho', 'encaminhei',
    'encaminhado', 'agendar', 'agendei', 'agendado', 'agendada', 'agendamos', 'marcar', 'marquei', 'marcado', 'marcada',
    'mandar', 'mandei', 'enviar', 'enviei', 'enviado', 'aferir', 'aferi', 'aferimos', 'aferida', 'medir', 'medi', 'medimos',
    'tirar sangue', 'tirei sangue', 'tiramos sangue', 'indicado', 'indico', 'recomendo', 'passar', 'vou passar', 'rodar',
    'rodei', 'rodamos', 'repetir', 'repetimos', 'vou repetir', 'vamos repetir', 'investigar com', 'fazer um', 'fazer uma',
    'precisa de', 'precisamos de', 'necessario', 'necessaria',
  ].map((phrase) => [phrase, true] as const),
);

/** Said with the exam, these make it a result or an old exam, or a declined one. */
const NOT_ORDERED = new PhraseTable<true>(
  [
    'mostrou', 'mostra', 'deu', 'veio', 'vieram', 'apresentou', 'apresenta', 'revelou', 'evidenciou', 'indicou', 'indica',
    'resultado', 'resultados', 'estava', 'estavam', 'esta normal', 'normal', 'normais', 'alterado', 'alterada', 'alterados',
    'ultimo', 'ultima', 'anterior', 'anteriores', 'antigo', 'antigos', 'de ontem', 'do mes passado', 'que fez', 'que ele fez',
    'que ela fez', 'feito em', 'trouxe', 'trouxeram', 'tinha feito', 'ja fez', 'ja tinha', 'fez', 'nao precisa', 'nao vou pedir',
    'nao vamos fazer', 'sem necessidade', 'nao quis', 'recusou', 'nao autorizou', 'dispensou', 'optou por nao', 'nao quer',
    'nao precisa de', 'nao vai precisar', 'por enquanto nao', 'se nao melhorar', 'se piorar', 'caso nao melhore', 'caso piore',
    'se persistir', 'se continuar', 'nao tem', 'negativo', 'positivo', 'reagente', 'nao reagente', 'acusou', 'confirmou',
    'compativel', 'sugestivo', 'sugere', 'sem alteracoes', 'dentro da normalidade', 'de referencia', 'valores',
  ].map((phrase) => [phrase, true] as const),
);

/** Words that may stand between an order and the exams it names ("pedir um hemograma, bioquímico e um ultrassom de abdome"). */
const LIST_GLUE = new Set([
  'o', 'a', 'os', 'as', 'um', 'uma', 'e', 'de', 'do', 'da', 'dos', 'das', 'tambem', 'exame', 'exames', 'para', 'pra', 'com',
  'completo', 'completa', 'abdominal', 'abdome', 'abdomen', 'torax', 'toracico', 'toracica', 'coluna', 'quadril', 'membro',
  'urgente', 'agora', 'hoje', 'ja', 'aqui', 'eu', 'gente', 'vou', 'vamos', 'sangue', 'ele', 'ela', 'nele', 'nela', 'dele',
  'dela', 'isso', 'logo', 'entao', 'mais', 'novo', 'nova', 'outro', 'outra', 'controle', 'uns', 'umas', 'alguns', 'algumas',
  'seguintes', 'no', 'na', 'nos', 'nas', 'ao', 'pelo', 'pela', 'material', 'amostra', 'amostras', 'urina', 'fezes',
]);
const REACH = 10;

export interface FoundExam {
  code: ExamCode;
  used: number[];
}

interface ExamMention {
  code: ExamCode;
  first: number;
  end: number;
}

export function examMentions(words: readonly string[]): ExamMention[] {
  const found: ExamMention[] = [];
  for (let at = 0; at < words.length; ) {
    const hit = EXAMS.at(words, at);
    if (hit) {
      found.push({ code: hit.value, first: at, end: hit.end });
      at = hit.end;
    } else at++;
  }
  return found;
}

/** The cue of a table within the list around mention `i` (back and forth over list glue and other exams). */
function listReach(w: Words, mentions: ExamMention[], i: number): { first: number; end: number } {
  const { words } = w;
  let first = mentions[i]!.first;
  for (let j = i; ; ) {
    let k = mentions[j]!.first;
    let steps = 0;
    while (k > 0 && steps < REACH && LIST_GLUE.has(words[k - 1]!) && !w.breakBefore[k]) {
      k--;
      steps++;
    }
    first = k;
    if (j > 0 && mentions[j - 1]!.end === k && !w.breakBefore[k]) j--;
    else break;
  }
  let end = mentions[i]!.end;
  for (let j = i; ; ) {
    let k = mentions[j]!.end;
    let steps = 0;
    while (k < words.length && steps < REACH && LIST_GLUE.has(words[k]!) && !w.breakBefore[k]) {
      k++;
      steps++;
    }
    end = k;
    if (j + 1 < mentions.length && mentions[j + 1]!.first === k && !w.breakBefore[k]) j++;
    else break;
  }
  return { first, end };
}

export function findExams(w: Words, mentions: ExamMention[]): FoundExam[] {
  const { words } = w;
  const found = new Map<ExamCode, FoundExam>();
  for (const [i, mention] of mentions.entries()) {
    if (found.has(mention.code)) continue;
    const list = listReach(w, mentions, i);
    // The order is said just before the list or just after it ("hemograma e bioquímico eu vou pedir").
    const order = ORDER.endingAt(words, list.first, 4) ?? orderAfter(words, list.end);
    const denied = notOrdered(w, list.first, list.end, mention);
    if (!order || denied) continue;
    const orderRange = 'first' in order ? [order.first, list.first] : [list.end, order.end];
    const used = [...range(orderRange[0]!, orderRange[1]!), ...range(mention.first, mention.end)];
    found.set(mention.code, { code: mention.code, used });
  }
  return [...found.values()];
}

function orderAfter(words: readonly string[], end: number): { end: number } | null {
  for (let k = end; k < Math.min(words.length, end + 3); k++) {
    const hit = ORDER.at(words, k);
    if (hit) return { end: hit.end };
  }
  return null;
}

/** A result or refusal said with the list: a few words before it, or after the mention in its sentence. */
function notOrdered(w: Words, first: number, end: number, mention: ExamMention): boolean {
  const { words } = w;
  for (let k = Math.max(0, first - 4); k < Math.min(words.length, mention.end + 6); k++) {
    if (k > mention.end && w.breakBefore[k]) break;
    if (k >= mention.first && k < mention.end) continue;
    if (NOT_ORDERED.at(words, k)) return true;
  }
  return end < 0;
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
