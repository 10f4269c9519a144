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
  | 'history'
  /** "limpar a ferida com soro": a fluid used to clean, not a medication (drugs of other classes keep their cue). */
  | 'cleaning'
  /** "em casa": for home ("em casa vai prednisolona"), unless said of what was taken before ("deu em casa"). */
  | 'home';

const phrases = (cue: Cue, list: string[]) => list.map((phrase) => [phrase, cue] as const);

// biome-ignore format: a table reads better packed
export const CUES = new PhraseTable<Cue>([
  ...phrases('prescribe', [
    'vou passar', 'vamos passar', 'passar', 'passo', 'vou prescrever', 'vamos prescrever', 'prescrever', 'prescrevo',
    'prescrevi', 'prescrito', 'prescrita', 'receitar', 'receito', 'receitei', 'vou receitar', 'vou entrar com', 'vamos entrar com',
    'entrar com', 'entra com', 'iniciar', 'inicia', 'iniciamos', 'comecar', 'comeca', 'comecamos', 'continuar', 'continua',
    'continue', 'manter', 'mantem', 'mantenha', 'mantemos', 'vou manter', 'dar', 'dando', 'oferecer', 'ofereca',
    'vai tomar', 'vai dar', 'vai usar', 'vai aplicar', 'vai pingar', 'vai passar', 'tomar', 'usar', 'utilizar', 'aplicar',
    'aplique', 'aplica', 'pingar', 'pinga', 'pingue', 'administrar', 'associar', 'associo', 'associado', 'vou associar',
    'vou deixar', 'deixar', 'indico', 'recomendo', 'orientei', 'ficar com', 'fica com', 'trocar para', 'troca para',
    'trocar por', 'trocar de', 'substituir por', 'prescricao', 'receita', 'tratamento com', 'tratar com', 'mandar para casa com',
    'trocar pelo', 'trocar pela', 'pra casa', 'para casa', 'pra casa vai', 'para casa vai', 'em casa vai', 'vai pra casa com', 'entra', 'entra a', 'entra o',
    'entra com', 'entrar', 'para os proximos dias', 'pros proximos dias', 'pra seguir', 'para seguir', 'repetir', 'vai repetir',
    'repete', 'seguir com', 'segue com', 'dar em casa', 'uso domiciliar', 'tratamento domiciliar',
    'deixo receitado', 'deixei receitado', 'deixo prescrito', 'deixei prescrito', 'vou indicar',
    'levar pra casa', 'leva pra casa', 'vai levar', 'vai continuar', 'vai seguir', 'vai manter', 'vai receber', 'vai ficar com',
    'pode dar', 'pode continuar', 'pode manter', 'pode usar', 'pode aplicar', 'pode pingar', 'pode passar', 'pode seguir',
    'precisa dar', 'precisa tomar', 'precisa usar', 'tem que dar', 'tem que tomar', 'tem que aplicar', 'tem que pingar',
    'tem que usar', 'deve tomar', 'deve receber', 'deve usar', 'deve dar', 'a gente vai passar', 'a gente vai dar', 'a gente passa',
    'mandei pra casa com', 'mando pra casa com', 'orientado a', 'orientada a', 'oriento', 'recomendado', 'na internacao', 'na internacao segue', 'segue', 'depois segue', 'vou mandar pra casa', 'manda pra casa', 'segue em casa', 'continua em casa', 'mantem em casa', 'mantendo', 'continuando',
  ]),
  ...phrases('home', ['em casa']),
  ...phrases('cleaning', [
    'limpar com', 'limpa com', 'limpe com', 'lavar com', 'lava com', 'lave com', 'limpa antes com', 'limpar antes com',
    'limpar a ferida com', 'limpar o ferimento com', 'lavar a ferida com', 'lavar o ferimento com', 'limpeza com',
    'limpeza da ferida com', 'limpar a regiao com', 'lavagem com', 'umedecido com', 'umedecida com', 'gaze com',
  ]),
  ...phrases('administer', [
    'apliquei', 'aplicamos', 'aplicado', 'aplicada', 'foi aplicado', 'foi aplicada', 'ja apliquei', 'ja aplicamos',
    'vou aplicar agora', 'aplicar agora', 'fazer agora', 'aplicar aqui', 'acabei de aplicar', 'acabamos de aplicar', 'administrei',
    'administramos', 'administrado', 'administrada', 'foi administrado', 'foi administrada', 'fiz', 'fizemos', 'foi feito',
    'foi feita',
    'injetei', 'injetamos', 'realizei', 'realizado', 'realizada', 'tomou aqui', 'tomou agora', 'recebeu aqui',
    'recebeu agora', 'dei aqui', 'dei agora', 'demos aqui', 'vou dar agora', 'vamos dar agora', 'vou dar aqui',
    'estou aplicando', 'to aplicando', 'aplicando', 'vou fazer agora', 'vamos fazer agora', 'ja fiz', 'ja fizemos',
    'dose aplicada', 'fiz aqui', 'fizemos aqui', 'aplicados', 'aplicadas', 'aplicado agora', 'aplicada agora',
    'aplicados agora', 'aplicados na consulta', 'aplicado na consulta', 'aplicada na consulta', 'administrados',
    'feitos agora', 'feito agora', 'feita agora', 'feito aqui', 'feita aqui', 'feito na consulta', 'feita na consulta',
    'dado aqui', 'dada aqui', 'dado agora', 'dada agora', 'dados aqui', 'na consulta', 'aqui na consulta', 'agora dou',
    'da agora', 'dar agora', 'dar aqui',
    'dou agora', 'sedei', 'sedei com', 'sedamos com', 'sedado com', 'sedada com', 'anestesiei', 'anestesiado com',
    'anestesiada com', 'anestesiado no', 'anestesiada no', 'anestesiado com', 'induzi com', 'inducao com',
    'fluidoterapia com', 'iniciada fluidoterapia com', 'iniciei fluidoterapia com', 'iniciada', 'iniciado', 'iniciei',
    'medicado com', 'medicada com', 'medicamos com', 'ja fiz aqui', 'ja dei aqui', 'recebeu aqui', 'tomou aqui na clinica',
    'coloquei', 'colocamos', 'coloquei no soro', 'ja coloquei', 'acabei de dar', 'acabei de fazer', 'acabamos de fazer',
    'acabamos de dar', 'ja to aplicando', 'to fazendo', 'estou fazendo', 'ja estou aplicando', 'infundi', 'infundimos',
    'vou sedar', 'vou sedar com', 'sedar com', 'sedacao com', 'medicacao pre anestesica com', 'mpa com', 'inducao com propofol',
    'epidural com', 'bloqueio com', 'anestesia com', 'manutencao com', 'mantido em', 'mantida em', 'mantido com', 'mantida com',
    'na inducao', 'ja foi', 'ja tomou aqui', 'acabei de pingar', 'pinguei', 'ja pinguei', 'pingamos', 'fluido com', 'a fluido com',
    'no soro com', 'soro com', 'mediquei', 'foi dado', 'foi dada', 'foram aplicados', 'foram aplicadas', 'foram feitos', 'foram feitas', 'foi realizado',
    'foi realizada', 'apliquei aqui', 'ja mediquei', 'fiz agora', 'fizemos agora', 'dei agora aqui',
  ]),
  ...phrases('administer_weak', [
    'vou aplicar', 'vamos aplicar', 'vou administrar', 'vamos administrar', 'vou fazer', 'vamos fazer', 'feito', 'feita',
    'a gente vai fazer', 'a gente vai aplicar', 'a gente aplica', 'a gente faz', 'vai fazer', 'vou dar', 'vamos dar',
    'aplicacao de', 'passei', 'ja passei', 'vermifuguei', 'vermifuguei com', 'vermifugacao com', 'vermifugado com', 'vermifugada com',
    'vou colocar', 'vamos colocar', 'no soro', 'na fluido', 'na fluidoterapia', 'associei', 'associamos', 'vou infundir', 'a gente coloca', 'a gente vai colocar',
  ]),
  ...phrases('suspend', [
    'suspender', 'suspenda', 'suspende', 'suspendi', 'suspendemos', 'suspenso', 'vou suspender', 'vamos suspender',
    'trocar o', 'trocar a', 'troca o', 'troca a', 'vou trocar o', 'vou trocar a', 'vamos trocar o', 'vamos trocar a',
    'substituir o', 'substituir a', 'substitui o', 'substitui a',
    'parar com', 'parar de dar', 'parar de usar', 'parar de tomar', 'parar o', 'parar a', 'pare com', 'pare o', 'pare a',
    'para com', 'para de dar', 'vamos parar', 'vou parar', 'tirar o', 'tirar a', 'tira o', 'tira a', 'retirar o', 'retirar a', 'retira o', 'interromper', 'interrompe', 'interrompa', 'interrompi',
    'descontinuar', 'descontinua', 'cortar o', 'cortar a', 'corta o', 'nao dar mais', 'nao da mais', 'nao de mais',
    'nao precisa mais', 'nao precisa mais dar', 'chega de', 'encerrar', 'encerra', 'pode parar', 'pode suspender',
    'pode tirar',
    'pode parar de dar', 'pode parar de usar', 'pode parar de pingar', 'para de usar', 'para de pingar', 'para de passar',
    'parar de pingar', 'parar de passar', 'deixa de dar', 'deixar de dar', 'nao vai mais tomar', 'nao vai mais usar',
    'nao precisa mais de', 'nao precisa mais usar', 'nao precisa mais tomar', 'nao precisa mais pingar', 'suspensa', 'suspendo',
    'retira a', 'retirar', 'descontinuo', 'nao usa mais', 'nao da mais o', 'nao da mais a', 'tira ele',
    'tira ela', 'retirei o', 'retirei a', 'pode suspender o', 'pode suspender a', 'interrompe ja', 'para ja', 'suspende ja',
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
    'nao quero', 'nao quis', 'nao vou iniciar', 'nao vou repetir', 'nao vamos repetir', 'nao vou associar', 'nao indicado',
    'nao indicada', 'nao vou fazer', 'nao vamos fazer', 'por enquanto nao', 'nao faz', 'nao resolve', 'existe', 'existe o',
    'existe a', 'existe tambem', 'pediluvio com', 'pediluvio de', 'no pediluvio', 'o frasco de', 'o frasco do', 'a caixa de', 'a caixa do', 'o vidro de', 'a embalagem de',
    'poderia fazer', 'poderia aplicar', 'poderiamos fazer', 'podia fazer', 'daria pra fazer', 'da pra fazer', 'uma opcao e',
    'outra opcao e', 'a opcao seria', 'mas prefiro nao', 'mas nao vou', 'mas nao vamos', 'mas nao quero', 'vou deixar sem', 'deixar sem', 'deixa sem', 'fica sem', 'vamos deixar sem', 'sem por enquanto', 'nao pode',
    'nao pode passar', 'nao pode dar', 'nao pode pingar', 'o preco do', 'o preco da', 'quanto custa o', 'quanto custa a', 'o valor do', 'o valor da', 'tem a opcao de', 'tem a opcao do', 'outra opcao seria', 'uma opcao seria',
  ]),
  ...phrases('history', [
    'ja tomou', 'tomou', 'tomava', 'tomaram', 'estava tomando', 'tava tomando', 'vinha tomando', 'tinha tomado',
    'ja tomava', 'ja usou', 'usou', 'usava', 'usaram', 'estava usando', 'tava usando', 'vinha usando', 'tinha usado',
    'deu', 'dava', 'deram', 'davam', 'dei', 'demos', 'tinha dado', 'ja deu', 'ja passaram', 'passaram', 'passou',
    'fez uso', 'fazia uso', 'faz uso', 'em uso de', 'ja fez', 'fez', 'recebeu', 'recebia', 'ja recebeu', 'usa', 'toma',
    'tratado com', 'tratada com', 'foi tratado com', 'foi tratada com', 'responde ao', 'respondeu ao', 'respondeu a',
    'ta tomando', 'esta tomando', 'to dando', 'estou dando', 'ta dando', 'tava dando', 'estava dando', 'vinha dando',
    'a tutora aplica', 'o tutor aplica', 'tutora aplica', 'tutor aplica', 'a tutora da', 'o tutor da', 'tutora da', 'tutor da',
    'a tutora usa', 'o tutor usa', 'a tutora pinga', 'o tutor pinga', 'o dono aplica', 'a dona aplica', 'o proprietario aplica',
    'o produtor aplica', 'o tratador aplica', 'tava pingando', 'estava pingando', 'vinha pingando', 'tava aplicando',
    'estava aplicando', 'vinha aplicando', 'tava passando', 'estava passando', 'vinha passando', 'ja aplicava', 'aplicava',
    'pingava', 'passava', 'ja tinha aplicado', 'o tratador ja tinha aplicado', 'tinha passado', 'ja passou', 'passaram em casa',
    'que eu passei', 'que passei', 'que o colega passou', 'passei', 'aquele', 'aquela', 'pingou', 'ja pingou', 'aplicou',
    'ja aplicou', 'tinha aplicado', 'ja tinha aplicado', 'tinha dado', 'ja tinha dado', 'acha que era', 'que sobrou',
    'colocava', 'colocou', 'parei', 'parou', 'parou de dar', 'ja recebeu', 'dei em casa', 'na consulta anterior',
    'na ultima consulta', 'que eu tinha', 'que tinha', 'que ela tinha', 'que ele tinha', 'perguntou de', 'perguntou sobre', 'voces dao', 'voce da', 'ja deram', 'deram em casa',
  ]),
]);
/** The longest cue phrase (words), for looking back. */
export const LONGEST_CUE = 6;

/** After a cue, these keep the cue's reach going to the drug ("vou passar também um comprimido de ..."). */
// biome-ignore format: a table reads better packed
export const GLUE = new Set([
  'o', 'a', 'os', 'as', 'um', 'uma', 'de', 'do', 'da', 'dos', 'das', 'com', 'tambem', 'e', 'ele', 'ela', 'nele', 'nela',
  'pra', 'para', 'pro', 'dele', 'dela', 'eu', 'agora', 'ja', 'hoje', 'aqui', 'entao', 'ai', 'ta', 'nao', 'mais', 'so',
  'apenas', 'gente', 'vou', 'vamos', 'la', 'isso', 'esse', 'essa', 'este', 'esta', 'no', 'na', 'ao', 'dose', 'doses',
  'uso', 'lhe', 'logo', 'tudo', 'bem', 'certo', 'beleza', 'ok', 'tipo', 'assim', 'que', 'seu', 'sua', 'medicacao',
  'medicamento', 'remedio', 'remedinho', 'antibiotico', 'anti', 'inflamatorio', 'analgesico', 'protetor', 'gastrico',
  'vermifugo', 'antipulgas', 'carrapaticida', 'injetavel', 'injecao', 'suspensao', 'solucao', 'sempre', 'se', 'ela', 'por', 'enquanto',
  'pode', 'podemos', 'precisa', 'vai', 'eles', 'unica', 'primeira', 'nova', 'novo', 'outra', 'outro', 'mesmo', 'mesma',
  'pouquinho', 'pouco', 'pouca', 'umas', 'uns', 'gotinhas', 'alguma', 'algum', 'coisa', 'ainda',
]);

/** Said of a drug, these place it in the past: "mês passado", "ontem", "há dois meses". */
// biome-ignore format: a table reads better packed
export const PAST_MARKERS = new PhraseTable<true>(
  [
    'mes passado', 'semana passada', 'ano passado', 'ontem', 'anteontem', 'anteriormente', 'no passado', 'outro veterinario',
    'outra veterinaria', 'outra clinica', 'outro colega', 'por conta propria', 'por conta', 'ultima vez',
    'da ultima vez', 'na ultima consulta', 'na outra consulta', 'ja faz', 'faz tempo', 'naquela epoca',
  ].map((phrase) => [phrase, true] as const),
);

/** Words that end a drug's reach: another topic of the plan begins. */
// biome-ignore format: a table reads better packed
export const TOPIC_STOPS = new Set([
  'retorno', 'retornar', 'retorne', 'revisao', 'reavaliacao', 'reavaliar', 'reavaliamos', 'volta', 'voltar', 'volte',
  'volto', 'voltamos', 'retorna', 'retornamos', 'reavalio', 'reavaliando',
  'vacina', 'vacinas', 'vacinar', 'vacinei', 'vacinacao', 'antirrabica', 'exame', 'exames', 'hemograma', 'bioquimico',
  'ultrassom', 'ultrassonografia', 'radiografia', 'raio', 'cirurgia', 'castracao', 'internacao', 'internar', 'anamnese',
  'diagnostico', 'suspeita', 'prognostico', 'observacoes', 'orcamento', 'valor', 'reais', 'custa', 'exame fisico',
  'dieta', 'alimentacao',
]);

/**
 * Headings that say what the drugs under them are: "Prescrição:", "Pra casa:", "Aplicado agora:",
 * "Medicação no trans-operatório:". A heading is a sentence of its own or the words before a colon;
 * the drugs after it, up to the next heading, take its status unless their own words say another.
 * `null`: a heading of another part of the note ("Diagnóstico:", "Orientações:"), which ends the last.
 */
// biome-ignore format: a table reads better packed
export const SECTIONS = new PhraseTable<'prescribed' | 'administered' | null>([
  ...[
    'prescricao', 'prescricoes', 'prescricao para casa', 'prescricao pra casa', 'prescricao da internacao', 'prescricao domiciliar',
    'receita', 'receituario', 'para casa', 'pra casa', 'em casa', 'tratamento domiciliar', 'tratamento para casa',
    'tratamento em casa', 'medicacao para casa', 'medicacoes para casa', 'uso domiciliar', 'para os proximos dias', 'pra seguir',
    'medicacao de uso continuo', 'prescrito', 'prescritos', 'internacao',
  ].map((phrase) => [phrase, 'prescribed'] as const),
  ...[
    'aplicado', 'aplicados', 'aplicado agora', 'aplicados agora', 'aplicado na consulta', 'aplicados na consulta',
    'medicacao aplicada', 'medicacoes aplicadas', 'medicacao no trans operatorio', 'medicacao trans operatoria',
    'medicacoes no trans operatorio', 'trans operatorio', 'transoperatorio', 'no trans operatorio', 'medicacao pre anestesica',
    'pre anestesico', 'mpa', 'inducao', 'feito na consulta', 'feito agora', 'feitos agora', 'medicacao realizada',
    'medicacoes realizadas', 'na clinica', 'aplicado na clinica', 'medicado', 'administrado', 'administrados',
    'medicacao administrada', 'medicacoes administradas', 'anestesia', 'protocolo anestesico', 'sedacao',
    'procedimento', 'procedimento cirurgico', 'cirurgia', 'procedimentos', 'anestesia e analgesia',
  ].map((phrase) => [phrase, 'administered'] as const),
  ...[
    'tratamento', 'conduta', 'plano', 'plano terapeutico', 'orientacoes', 'orientacao', 'observacoes', 'observacao', 'retorno',
    'seguimento', 'diagnostico', 'exames', 'exame', 'exame fisico', 'exame clinico', 'anamnese', 'historico', 'identificacao',
    'queixa', 'rebanho', 'material', 'suspeita', 'paciente', 'exames solicitados', 'exames complementares',
    'prognostico', 'recomendacoes',
  ].map((phrase) => [phrase, null] as const),
]);
