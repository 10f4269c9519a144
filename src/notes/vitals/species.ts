// The patient's species from the words of the consultation, when the upload did not say it. Each
// mention counts; the first mention counts a little more (the patient is usually named first:
// "paciente canino, dez anos"), and animals counted or called "outro" count less, so "a cadela
// convive com dois gatos" is still a dog.

import type { Species } from '../store/vitals.schemas.ts';
import { tokenize } from './tokens.ts';

// Species words and common breeds in Brazil (a breed names the species as well as the word does).
// Breeds of two words are joined with "_" and matched as a pair.
const WORDS: Record<Species, string> = {
  canine:
    'cao caes cachorro cachorros cachorra cachorrinho cachorrinha cadela cadelas canino canina caninos caninas cadelinha ' +
    'labrador poodle pinscher yorkshire shih_tzu beagle golden rottweiler pitbull bulldog buldogue dachshund husky ' +
    'chihuahua pug lhasa maltes spitz schnauzer boxer collie pastor_alemao dalmata doberman akita cocker pointer ' +
    'lulu_da_pomerania weimaraner',
  feline: 'gato gatos gata gatas gatinho gatinha felino felina felinos felinas siames persa maine_coon angora sphynx ragdoll',
  equine:
    'cavalo cavalos egua eguas potro potra potros potranca equino equina equinos muar mula burro jumento asinino ' +
    'quarto_de_milha mangalarga crioulo appaloosa percheron puro_sangue',
  bovine:
    'vaca vacas boi bois bezerro bezerra bezerros novilha novilho novilhas bovino bovina bovinos touro garrote ' +
    'holandesa nelore girolando jersey angus brahman guzera',
  caprine: 'cabra cabras bode bodes cabrito cabrita caprino caprina caprinos saanen boer anglo_nubiana',
  ovine: 'ovelha ovelhas carneiro carneiros cordeiro cordeira borrego borrega ovino ovina ovinos santa_ines dorper texel suffolk',
  lagomorph: 'coelho coelha coelhos coelhinho coelhinha lagomorfo mini_lop',
  avian:
    'ave aves calopsita calopsitas papagaio papagaios periquito periquitos canario canarios galinha galinhas galo ' +
    'arara agapornis passaro passarinho',
  other:
    'hamster hamsters porquinho_da_india chinchila chinchilas furao ferret camundongo gerbil jabuti tartaruga cagado ' +
    'iguana serpente lagarto gecko teiu',
};

const SPECIES_OF = new Map<string, Species>(
  Object.entries(WORDS).flatMap(([species, words]) => words.split(/\s+/).map((word) => [word, species as Species] as const)),
);
const LONGEST = Math.max(...[...SPECIES_OF.keys()].map((word) => word.split('_').length));

/** "convive com dois gatos", "tem outro cão em casa": other animals of the house count less than the patient. */
const OTHER_ANIMALS_AFTER = new Set(
  'outro outra outros outras dois duas tres quatro cinco varios varias convive contato contactantes mais'.split(' '),
);

/** Words before a species word that make it something else: "dente canino". */
const NOT_THE_PATIENT_AFTER = new Set(['dente', 'dentes', 'presa', 'presas']);

/** The species a word (or the words from `at`, for a breed of several) names, with how many words it took. */
export function speciesAt(words: string[], at: number): { species: Species; end: number } | null {
  if (at < 0 || NOT_THE_PATIENT_AFTER.has(words[at - 1] ?? '')) return null;
  for (let length = LONGEST; length >= 1; length--) {
    const species = SPECIES_OF.get(words.slice(at, at + length).join('_'));
    if (species && at + length <= words.length) return { species, end: at + length };
  }
  return null;
}

export function detectSpecies(text: string): Species | null {
  const words = tokenize(text).map((token) => token.word);
  const score = new Map<Species, number>();
  let first: Species | null = null;
  for (let index = 0; index < words.length; index++) {
    const found = speciesAt(words, index);
    if (!found) continue;
    const others = [words[index - 1], words[index - 2]].some((word) => OTHER_ANIMALS_AFTER.has(word ?? ''));
    if (!others) first ??= found.species;
    score.set(found.species, (score.get(found.species) ?? 0) + (others ? 0.25 : 1));
    index = found.end - 1;
  }
  if (score.size === 0) return null;
  if (first !== null) score.set(first, score.get(first)! + 0.5);
  return [...score.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}
