// The words that say what happens to a drug in this visit, folded (lower case, no accents).
// docs/notes-plan-extraction.md lists them for a reader; these tables are what the extraction uses.

import { PhraseTable } from './tokens.ts';

export type Cue =
  /** For home: "vou passar", "prescrevo", "dar", "iniciar", "manter". */
  | 'prescribe'
  /** In the clinic now: "apliquei", "foi aplicado", "vou aplicar agora", "fiz". */
  | 'administer'
  /** Said like an administration but also how a home treatment is put ("vamos fazer X por 7 dias"): administered only without a schedule. */
  | 'administer_weak'
  /** Stopped: "suspender", "parar com", "tirar o". */
  | 'suspend'
  /** Considered and rejected: "não vou passar", "poderia usar", "em vez de". */
  | 'reject'
  /** Taken before: "já tomou", "estava tomando", "usou". */
  | 'history';

const phrases = (cue: Cue, list: string[]) => list.map((phrase) => [phrase, cue] as const);

export const CUES = new PhraseTable<Cue>([
  ...phrases('prescribe', [
    'vou passar', 'vamos passar', 'passar', 'passo', 'passei', 'vou prescrever', 'vamos prescrever', 'prescrever', 'prescrevo',
    'prescrevi', 'prescrito', 'prescrita', 'receitar', 'receito', 'receitei', 'vou receitar', 'vou entrar com', 'vamos entrar com',
    'entrar com', 'entra com', 'iniciar', 'inicia', 'iniciamos', 'comecar', 'comeca', 'comecamos', 'continuar', 'continua',
    'continue', 'manter', 'mantem', 'mantenha', 'mantemos', 'vou manter', 'dar', 'dando', 'oferecer', 'ofereca',
    'vai tomar', 'vai dar', 'vai usar', 'vai aplicar', 'vai pingar', 'vai passar', 'tomar', 'usar', 'utilizar', 'aplicar',
    'aplique', 'aplica', 'pingar', 'pinga', 'pingue', 'administrar', 'associar', 'associo', 'associado', 'vou associar',
    'vou deixar', 'deixar', 'indico', 'recomendo', 'orientei', 'ficar com', 'fica com', 'trocar para', 'troca para',
    'trocar por', 'substituir por', 'prescricao', 'receita', 'tratamento com', 'tratar com', 'mandar para casa com',
  ]),
  ...phrases('administer', [
    'apliquei', 'aplicamos', 'aplicado', 'aplicada', 'foi aplicado', 'foi aplicada', 'ja apliquei', 'ja aplicamos',
    'vou aplicar agora', 'aplicar agora', 'fazer agora', 'aplicar aqui', 'acabei de aplicar', 'acabamos de aplicar', 'administrei',
    'administramos', 'administrado', 'administrada', 'foi administrado', 'foi administrada', 'fiz', 'fizemos', 'foi feito',
    'foi feita',
    'injetei', 'injetamos', 'realizei', 'realizado', 'realizada', 'tomou aqui', 'tomou agora', 'recebeu aqui',
    'recebeu agora', 'dei aqui', 'dei agora', 'demos aqui', 'vou dar agora', 'vamos dar agora', 'vou dar aqui',
    'estou aplicando', 'to aplicando', 'aplicando', 'vou fazer agora', 'vamos fazer agora', 'ja fiz', 'ja fizemos',
    'dose aplicada', 'fiz aqui', 'fizemos aqui',
  ]),
  ...phrases('administer_weak', [
    'vou aplicar', 'vamos aplicar', 'vou administrar', 'vamos administrar', 'vou fazer', 'vamos fazer', 'feito', 'feita',
  ]),
  ...phrases('suspend', [
    'suspender', 'suspenda', 'suspende', 'suspendi', 'suspendemos', 'suspenso', 'vou suspender', 'vamos suspender',
    'parar com', 'parar de dar', 'parar de usar', 'parar de tomar', 'parar o', 'parar a', 'pare com', 'pare o', 'pare a',
    'para com', 'para de dar', 'vamos parar', 'vou parar', 'tirar o', 'tirar a', 'tira o', 'tira a', 'vamos tirar',
    'vou tirar', 'retirar o', 'retirar a', 'retira o', 'interromper', 'interrompe', 'interrompa', 'interrompi',
    'descontinuar', 'descontinua', 'cortar o', 'cortar a', 'corta o', 'nao dar mais', 'nao da mais', 'nao de mais',
    'nao precisa mais', 'nao precisa mais dar', 'chega de', 'encerrar', 'encerra', 'pode parar', 'pode suspender',
    'pode tirar',
  ]),
  ...phrases('reject', [
    'nao vou passar', 'nao vou usar', 'nao vou dar', 'nao vou prescrever', 'nao vou aplicar', 'nao vou receitar',
    'nao vou entrar com', 'nao vamos passar', 'nao vamos usar', 'nao vamos dar', 'nao vamos entrar com', 'nao precisa de',
    'nao precisa', 'nao e necessario', 'nao ha necessidade de', 'sem necessidade de', 'poderia usar', 'poderia passar',
    'poderia dar', 'poderia entrar com', 'poderia ser', 'podia usar', 'podia passar', 'poderiamos usar', 'poderiamos passar',
    'daria para usar', 'daria pra usar', 'pensei em', 'cheguei a pensar em', 'cogitei', 'considerei', 'em vez de',
    'ao inves de', 'inves de', 'no lugar de', 'evitar', 'evite', 'evitando', 'nao pode tomar', 'nao pode usar',
    'nao pode receber', 'nao usar', 'nao dar', 'nao de', 'nunca', 'alergico a', 'alergica a', 'alergico ao',
    'alergica ao', 'alergia a', 'alergia ao', 'reacao a', 'reacao ao', 'contraindicado', 'contraindicada',
    'nao recomendo', 'nao indico', 'descartei', 'nem', 'sem', 'mas nao', 'nao tem', 'preferi nao', 'prefiro nao',
    'nao quero', 'nao quis',
  ]),
  ...phrases('history', [
    'ja tomou', 'tomou', 'tomava', 'tomaram', 'estava tomando', 'tava tomando', 'vinha tomando', 'tinha tomado',
    'ja tomava', 'ja usou', 'usou', 'usava', 'usaram', 'estava usando', 'tava usando', 'vinha usando', 'tinha usado',
    'deu', 'dava', 'deram', 'davam', 'dei', 'demos', 'tinha dado', 'ja deu', 'ja passaram', 'passaram', 'passou',
    'fez uso', 'fazia uso', 'faz uso', 'em uso de', 'ja fez', 'fez', 'recebeu', 'recebia', 'ja recebeu', 'usa', 'toma',
    'tratado com', 'tratada com', 'foi tratado com', 'foi tratada com', 'responde ao', 'respondeu ao', 'respondeu a',
  ]),
]);
/** The longest cue phrase (words), for looking back. */
export const LONGEST_CUE = 6;

/** After a cue, these keep the cue's reach going to the drug ("vou passar também um comprimido de ..."). */
export const GLUE = new Set([
  'o', 'a', 'os', 'as', 'um', 'uma', 'de', 'do', 'da', 'dos', 'das', 'com', 'tambem', 'e', 'ele', 'ela', 'nele', 'nela',
  'pra', 'para', 'pro', 'dele', 'dela', 'eu', 'agora', 'ja', 'hoje', 'aqui', 'entao', 'ai', 'ta', 'nao', 'mais', 'so',
  'apenas', 'gente', 'vou', 'vamos', 'la', 'isso', 'esse', 'essa', 'este', 'esta', 'no', 'na', 'ao', 'dose', 'doses',
  'uso', 'lhe', 'logo', 'tudo', 'bem', 'certo', 'beleza', 'ok', 'tipo', 'assim', 'que', 'seu', 'sua', 'medicacao',
  'medicamento', 'remedio', 'remedinho', 'antibiotico', 'anti', 'inflamatorio', 'analgesico', 'protetor', 'gastrico',
  'vermifugo', 'antipulgas', 'carrapaticida', 'colirio', 'pomada', 'shampoo', 'injetavel', 'injecao', 'comprimido',
  'comprimidos', 'gotas', 'xarope', 'pipeta', 'suspensao', 'solucao', 'oral', 'sempre', 'se', 'ela', 'por', 'enquanto',
  'pode', 'podemos', 'precisa', 'vai', 'eles', 'unica', 'primeira', 'nova', 'novo', 'outra', 'outro', 'mesmo', 'mesma',
]);

/** Said of a drug, these place it in the past: "mês passado", "ontem", "há dois meses". */
export const PAST_MARKERS = new PhraseTable<true>(
  [
    'mes passado', 'semana passada', 'ano passado', 'ontem', 'anteontem', 'anteriormente', 'no passado', 'outro veterinario',
    'outra veterinaria', 'outra clinica', 'outro colega', 'em casa', 'por conta propria', 'por conta', 'ultima vez',
    'da ultima vez', 'na ultima consulta', 'na outra consulta', 'ja faz', 'faz tempo', 'naquela epoca',
  ].map((phrase) => [phrase, true] as const),
);

/** Words that end a drug's reach: another topic of the plan begins. */
export const TOPIC_STOPS = new Set([
  'retorno', 'retornar', 'retorne', 'revisao', 'reavaliacao', 'reavaliar', 'reavaliamos', 'volta', 'voltar', 'volte',
  'vacina', 'vacinas', 'vacinar', 'vacinei', 'vacinacao', 'antirrabica', 'exame', 'exames', 'hemograma', 'bioquimico',
  'ultrassom', 'ultrassonografia', 'radiografia', 'raio', 'cirurgia', 'castracao', 'internacao', 'internar', 'anamnese',
  'diagnostico', 'suspeita', 'prognostico', 'observacoes', 'orcamento', 'valor', 'reais', 'custa', 'exame fisico',
  'dieta', 'alimentacao',
]);
