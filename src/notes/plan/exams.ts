// Exams ordered or done in this visit: an exam's name with an order said in its sentence, before it
// ("vou pedir hemograma, bioquímico e ultrassom", "coletei sangue para hemograma", "Exames
// solicitados. Frutosamina, urinálise ...") or right after it ("raio-x feito agora", "Snap 4Dx
// feito na consulta"); not an old result being discussed ("o ultrassom de dezembro", "o raio-x de
// dois anos atrás já mostrava"), not an exam declined or left for a condition, and not an exam a
// return is for ("volta em 21 dias pra repetir o T4"). One item per code.

import type { ExamCode } from '../store/plan.schemas.ts';
import { PhraseTable, type Words } from './tokens.ts';

const exam = (code: ExamCode, list: string[]) => list.map((phrase) => [phrase, code] as const);

// biome-ignore format: a table reads better packed
export const EXAMS = new PhraseTable<ExamCode>([
  ...exam('cbc', ['hemograma', 'hemograma completo', 'hemogramas', 'hemograma e plaquetas', 'exame de sangue', 'exames de sangue', 'hemogram', 'contagem de plaquetas', 'hematocrito', 'eritrograma', 'leucograma']),
  ...exam('biochemistry', [
    'bioquimico', 'bioquimicos', 'bioquimica', 'bioquimica serica', 'perfil bioquimico', 'exames bioquimicos', 'exame bioquimico',
    'funcao renal', 'funcao hepatica', 'perfil renal', 'perfil hepatico', 'ureia e creatinina', 'ureia', 'creatinina',
    'alt e fa', 'enzimas hepaticas', 'eletrolitos', 'albumina', 'proteinas totais', 'colesterol', 'triglicerides', 'bioquimico completo',
    'glicemia', 'calcio', 'calcio ionizado', 'fosforo', 'potassio', 'sodio', 'sdma', 'fosfatase alcalina', 'bilirrubina',
  ]),
  ...exam('urinalysis', ['urinalise', 'exame de urina', 'urina tipo um', 'urina tipo 1', 'eas', 'sumario de urina', 'relacao proteina creatinina urinaria', 'upc', 'urinalise completa', 'amostra de urina', 'urina para', 'urina pra', 'exame de urina completo', 'urina rotina']),
  ...exam('fecal', ['parasitologico', 'parasitologico de fezes', 'coproparasitologico', 'exame de fezes', 'opg', 'contagem de ovos', 'coprologico', 'exame coproparasitologico', 'exame parasitologico', 'contagem de oocistos', 'contagem de ovos por grama', 'amostra de fezes', 'fezes para', 'fezes pra', 'coproparasitologico de fezes', 'exame de fezes seriado', 'parasitologico seriado']),
  ...exam('ultrasound', ['ultrassom', 'ultrassonografia', 'ultrasson', 'ultra som', 'ultra sonografia', 'usg', 'ecografia', 'ultrassom abdominal', 'ultrassonografia abdominal', 'ultrassom de abdomen', 'ultra', 'ultrassonografico', 'ultrassom transretal', 'ultrassonografia transretal', 'us abdominal', 'ultrassom abdominal total', 'ultrassons']),
  ...exam('radiograph', ['raio x', 'raios x', 'rx', 'radiografia', 'radiografias', 'exame radiografico', 'chapa', 'chapas', 'raio x de torax', 'radiografia de torax', 'raio xis', 'raiox', 'radiografico', 'estudo radiografico']),
  ...exam('cytology', ['citologia', 'citologico', 'citologia otologica', 'citologia auricular', 'paaf', 'puncao aspirativa', 'imprint', 'citologia de pele', 'citologia vaginal', 'citologia aspirativa', 'aspirado', 'puncao por agulha fina', 'swab para citologia']),
  ...exam('culture', ['cultura', 'cultura e antibiograma', 'antibiograma', 'urocultura', 'cultura fungica', 'cultura bacteriana', 'hemocultura', 'cultura com antibiograma', 'urocultura com antibiograma']),
  ...exam('ecg', ['eletrocardiograma', 'ecg', 'eletro', 'holter', 'eletrocardiografico', 'eletro do coracao']),
  ...exam('echocardiogram', ['ecocardiograma', 'ecocardiografia', 'ecocardio', 'ecodopplercardiograma', 'eco do coracao', 'eco', 'ecodoppler', 'ecocardiografico', 'ecodopplercardiografia']),
  ...exam('blood_pressure', ['pressao arterial', 'pressao', 'pressao sistolica', 'doppler']),
  ...exam('rapid_test', [
    'teste rapido', 'testes rapidos', 'snap', 'snap test', '4dx', 'snap 4dx', 'teste de cinomose', 'teste de parvovirose',
    'teste de parvo', 'teste de fiv e felv', 'teste fiv felv', 'teste de giardia', 'teste de leishmaniose',
    'teste rapido de leishmaniose', 'teste de erliquiose', 'teste de fiv', 'teste de felv', 'teste do carrapato', 'kit rapido', 'teste rapido de', 'snap de', 'teste de cinomose e parvo', 'teste imunocromatografico', 'imunocromatografico', 'teste de erlichia', 'teste de ehrlichia', 'teste de dirofilaria', 'teste de dirofilariose', 'teste de fiv felv',
  ]),
  ...exam('pcr', ['pcr', 'rt pcr', 'qpcr']),
  ...exam('histopathology', ['biopsia', 'histopatologico', 'histopatologia', 'exame histopatologico', 'biopsia incisional', 'biopsia excisional', 'histopatologico do nodulo']),
  ...exam('other', [
    'tomografia', 'ressonancia', 'ressonancia magnetica', 'endoscopia', 'sorologia', 't4', 't4 livre', 't4 total', 'tsh', 'cortisol',
    'supressao com dexametasona', 'estimulacao com acth', 'mielograma', 'liquor', 'gasometria', 'coagulograma', 'teste de coagulacao',
    'tempo de protrombina', 'rinoscopia', 'teste de tuberculina', 'tuberculinizacao', 'exame andrologico',
    'pesquisa de hemoparasitas', 'dosagem serica', 'dosagem', 'frutosamina', 'curva glicemica', 'raspado',
    'raspado de pele', 'raspado cutaneo', 'raspado profundo', 'tricograma', 'fenobarbital serico', 'imunofenotipagem',
    'eletroforese', 'teste de estimulacao', 'exame de brucelose', 'teste de brucelose', 'necropsia', 'anemia infecciosa', 'exame de anemia infecciosa', 'coggins', 'teste de coggins', 'aie', 'exame de aie', 'mormo', 'exame de mormo', 'exame de fundo de olho', 'sorologia para', 'elisa', 'ifi', 'reacao de imunofluorescencia', 'hemogasometria', 'lactato serico', 'tempo de coagulacao', 'dosagem de', 'teste de supressao', 'acth', 'insulina serica', 'progesterona serica', 'cultura de pelo', 'lampada de wood', 'exame de raspado', 'exame micologico', 'micologico', 'tipagem sanguinea', 'teste de compatibilidade', 'prova cruzada', 'reticulocitos', 'esfregaco sanguineo', 'pesquisa de hemoparasitas', 'exame de cmt',
  ]),
]);

// biome-ignore format: a table reads better packed
const ORDER = new PhraseTable<true>(
  [
    'pedir', 'vou pedir', 'vamos pedir', 'peco', 'pedimos', 'pedi', 'pedido', 'solicitar', 'solicito', 'solicitei', 'solicitado',
    'solicitada', 'solicitados', 'solicitadas', 'solicitamos', 'requisitar', 'requisito', 'requisitei', 'fazer', 'faca', 'facam',
    'fazemos', 'fiz', 'fizemos', 'feito', 'feita', 'feitos', 'feitas', 'vou fazer', 'vamos fazer', 'vai fazer', 'precisa fazer',
    'precisamos fazer', 'tem que fazer', 'quero fazer', 'queria fazer', 'realizar', 'realizei', 'realizado', 'realizada',
    'realizados', 'realizamos', 'coletar', 'coletei', 'coletamos', 'coletado', 'coletada', 'coletados', 'colher', 'colhi',
    'colhemos', 'colhido', 'colhida', 'colhidos', 'coleta', 'coleta de', 'encaminhar', 'encaminho', 'encaminhei', 'encaminhado',
    'encaminhada', 'agendar', 'agendei', 'agendado', 'agendada', 'agendamos', 'marcar', 'marquei', 'marcado', 'marcada', 'mandar',
    'mandei', 'mandamos', 'enviar', 'enviei', 'enviado', 'enviada', 'enviados', 'enviamos', 'aferir', 'aferi', 'aferimos', 'aferida',
    'medir', 'medi', 'medimos', 'medida', 'tirar sangue', 'tirei sangue', 'tiramos sangue', 'indicado', 'indico', 'recomendo',
    'rodar', 'rodei', 'rodamos', 'repetir', 'repetimos', 'vou repetir', 'vamos repetir', 'precisa de', 'precisamos de',
    'quero', 'queria', 'quero tambem', 'queria tambem', 'solicitacao', 'pedido de', 'requisicao', 'amostra para', 'amostras para',
    'levar', 'vou levar', 'levo', 'bater', 'bati', 'batemos', 'vou bater', 'vamos bater', 'tirar', 'tirei', 'tiramos', 'vou tirar', 'vamos tirar', 'dosei',
    'vou dosar', 'vamos dosar', 'mandar pro laboratorio', 'levar pro laboratorio', 'mandei pro laboratorio', 'vou mandar', 'vamos mandar',
    'vou colher', 'vamos colher', 'colhendo', 'coletando', 'a gente faz', 'a gente vai fazer', 'fazendo', 'fazer um',
    'encaminhamos', 'vou encaminhar', 'vamos encaminhar', 'solicitando', 'pedindo', 'vou solicitar', 'vamos solicitar', 'precisamos',
    'precisa', 'necessario', 'importante fazer', 'fazer tambem', 'colocar no laboratorio', 'vai pro laboratorio', 'enviar pro laboratorio',
  ].map((phrase) => [phrase, true] as const),
);

/** Said with the exam, these make it an old result, a declined exam or one left for a condition. */
// biome-ignore format: a table reads better packed
const NOT_ORDERED = new PhraseTable<true>(
  [
    'de ontem', 'do mes passado', 'da semana passada', 'semana passada', 'mes passado', 'ano passado', 'anterior', 'anteriores',
    'antigo', 'antigos', 'ultimo', 'ultima', 'que fez', 'que ele fez', 'que ela fez', 'feito em', 'trouxe', 'trouxeram', 'trazidos',
    'trazido', 'tinha feito', 'ja fez', 'ja tinha', 'atras', 'mostrava', 'ja mostrava', 'de janeiro', 'de fevereiro', 'de marco',
    'de abril', 'de maio', 'de junho', 'de julho', 'de agosto', 'de setembro', 'de outubro', 'de novembro', 'de dezembro',
    'nao precisa', 'nao vou pedir', 'nao vamos fazer', 'nao vou fazer', 'sem necessidade', 'nao quis', 'recusou', 'nao autorizou',
    'dispensou', 'optou por nao', 'nao quer', 'nao vai precisar', 'por enquanto nao', 'se nao melhorar', 'se piorar',
    'caso nao melhore', 'caso piore', 'se persistir', 'se continuar', 'saiu o resultado', 'que a gente colheu', 'que colhemos',
    'outra clinica', 'outro veterinario', 'na fita', 'fita de glicose', 'fita de cetona', 'fita reagente', 'glicosimetro', 'recomendaria', 'eu recomendaria', 'hoje nao da',
    'fica pra proxima',
  ].map((phrase) => [phrase, true] as const),
);

/** How far before the exam (in its sentence) its order may be said, and after it. */
const BEFORE = 12;
const AFTER = 4;

export interface FoundExam {
  code: ExamCode;
  used: number[];
}

export interface ExamMention {
  code: ExamCode;
  /** "exame de sangue": a hemogram only when no other exam is named in its sentence ("um exame de sangue, um bioquímico"). */
  generic?: boolean;
  first: number;
  end: number;
}

export function examMentions(words: readonly string[]): ExamMention[] {
  const found: ExamMention[] = [];
  for (let at = 0; at < words.length; ) {
    const hit = EXAMS.at(words, at);
    if (hit) {
      const generic = words[at] === 'exame' || words[at] === 'exames' ? words[at + 2] === 'sangue' && hit.end === at + 3 : false;
      found.push({ code: hit.value, first: at, end: hit.end, ...(generic ? { generic } : {}) });
      at = hit.end;
    } else at++;
  }
  return found;
}

/** The start of the sentence holding `at`. */
function sentenceStart(w: Words, at: number): number {
  let k = at;
  while (k > 0 && !w.breakBefore[k]) k--;
  return k;
}

/** An order said before the exam in its sentence, back to `floor`: its range, or null. */
function orderBefore(words: readonly string[], floor: number, at: number): [number, number] | null {
  for (let k = at - 1; k >= floor; k--) {
    const hit = ORDER.at(words, k);
    if (hit && hit.end <= at) return [k, hit.end];
  }
  return null;
}

/**
 * The exams ordered. `inFollowUp` says whether a word is in a follow-up's clause (what a return is for).
 */
export function findExams(w: Words, mentions: ExamMention[], inFollowUp: (at: number) => boolean): FoundExam[] {
  const { words } = w;
  const found = new Map<ExamCode, FoundExam>();
  // The order of the list an exam is in: "Enviado sangue para PCR ..., hemograma e bioquímico, e urina para urinálise".
  let listOrder = null as { sentence: number; order: [number, number] } | null;
  for (const mention of mentions) {
    if (inFollowUp(mention.first)) continue;
    const start = sentenceStart(w, mention.first);
    if (mention.generic && mentions.some((other) => other !== mention && !other.generic && sentenceStart(w, other.first) === start))
      continue;
    let order = orderBefore(words, Math.max(start, mention.first - BEFORE), mention.first);
    if (!order && listOrder?.sentence === start) order = listOrder.order;
    if (!order) {
      for (let k = mention.end; k < Math.min(words.length, mention.end + AFTER) && !w.breakBefore[k]; k++) {
        const hit = ORDER.at(words, k);
        if (hit) {
          order = [k, hit.end];
          break;
        }
      }
    }
    // "Exames solicitados. Frutosamina, urinálise e urocultura": a heading that orders the list after it.
    if (!order && start > 0) {
      const previous = sentenceStart(w, start - 1);
      if (start - previous <= 3) order = orderBefore(words, previous, start);
    }
    if (!order) continue;
    if (denied(w, mention, order)) continue;
    listOrder = { sentence: start, order };
    if (found.has(mention.code)) continue;
    found.set(mention.code, { code: mention.code, used: [...range(order[0], order[1]), ...range(mention.first, mention.end)] });
  }
  return [...found.values()];
}

/** An old result or a refusal said between the order and the exam, or right after the exam in its sentence. */
function denied(w: Words, mention: ExamMention, order: [number, number]): boolean {
  const { words } = w;
  const from = Math.min(order[1], mention.first);
  // "se der alterado, a gente faz o ultrassom": an exam left for a condition.
  for (let k = order[1]; k < mention.first; k++) if (words[k] === 'se' || words[k] === 'caso') return true;
  // "não precisa fazer raio-x", "não vou pedir o ultrassom", "nem vou fazer": the order said negated.
  for (let k = Math.max(0, order[0] - 3); k < order[0]; k++) {
    if ((words[k] === 'nao' || words[k] === 'nem') && !range(k + 1, order[0] + 1).some((j) => w.breakBefore[j])) return true;
  }
  for (let k = from; k < Math.min(words.length, mention.end + 6); k++) {
    if (k > mention.first && w.breakBefore[k]) break;
    if (k >= mention.first && k < mention.end) continue;
    if (k >= order[0] && k < order[1]) continue;
    if (NOT_ORDERED.at(words, k)) return true;
  }
  return false;
}

const range = (first: number, end: number) => Array.from({ length: Math.max(0, end - first) }, (_, i) => first + i);
