// The commonest short words of spoken pt-BR (articles, prepositions and their contractions,
// pronouns, conjunctions, the forms of ser/estar/ter/ir and the fillers of speech), written down by
// the team. Two of them in a row are never read as one word split in two ("com osso" is not
// "colosso"). Longer ordinary words that look like a drug are in
// notes/plan/lexicon/drug-lookalikes.ts.

export const COMMON_SHORT_WORDS: ReadonlySet<string> = new Set(
  `a o as os um uma uns umas de do da dos das em no na nos nas num numa por pelo pela pelos pelas para pra pro pras pros
  com sem sob sobre ate apos entre contra desde e ou mas nem que se como quando onde porque pois entao
  eu tu ele ela nos vos eles elas me te lhe lhes nos vos voce voces meu minha meus minhas seu sua seus suas dele dela
  deles delas esse essa esses essas este esta estes estas isso isto aquilo aquele aquela aqui ali la ca
  ja nao sim mais menos muito muita pouco pouca bem mal so tambem ainda agora hoje ontem amanha depois antes
  ser sou e era foi sao eram estar estou esta estava estao tava ta ter tenho tem tinha teve temos tem
  ir vou vai vamos vao fazer faz fez dar da deu dou ver vi viu dizer diz disse falar fala
  ne ai eh tipo assim bom olha ok ha dia dias vez vezes hora horas mes meses ano anos semana semanas
  cada todo toda todos todas outro outra outros outras mesmo mesma qual quais quanto quanta quantos
  dois duas tres quatro cinco seis sete oito nove dez onze doze meio meia zero cem mil`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Clinical words of pt-BR consultations that are not in a general word list but are close to a
 * drug name: never taken for a misheard drug.
 */
export const CLINICAL_WORDS: ReadonlySet<string> = new Set(['cerumen', 'cerumem', 'ceruminoso', 'ceruminosa']);
