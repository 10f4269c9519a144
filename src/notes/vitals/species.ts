// The patient's species from the words of the consultation, when the upload did not say it. Each
// mention counts; the first mention counts a little more (the patient is usually named first:
// "paciente canino, dez anos"), so "a cadela convive com dois gatos" is still a dog.

import type { Species } from '../store/vitals.schemas.ts';
import { tokenize } from './tokens.ts';

const WORDS: Record<Species, string> = {
  canine:
    'cao caes cachorro cachorros cachorra cachorrinho cachorrinha cadela cadelas canino canina caninos caninas cadelinha',
  feline: 'gato gatos gata gatas gatinho gatinha felino felina felinos felinas',
  equine: 'cavalo cavalos egua eguas potro potra potros potranca equino equina equinos muar mula burro jumento asinino',
  bovine: 'vaca vacas boi bois bezerro bezerra bezerros novilha novilho novilhas bovino bovina bovinos touro garrote',
  caprine: 'cabra cabras bode bodes cabrito cabrita caprino caprina caprinos',
  ovine: 'ovelha ovelhas carneiro carneiros cordeiro cordeira borrego borrega ovino ovina ovinos',
  lagomorph: 'coelho coelha coelhos coelhinho coelhinha lagomorfo',
  avian:
    'ave aves calopsita calopsitas papagaio papagaios periquito periquitos canario canarios galinha galinhas galo ' +
    'arara agapornis passaro passarinho',
  other:
    'hamster hamsters porquinho chinchila chinchilas furao ferret camundongo gerbil jabuti tartaruga cagado ' +
    'iguana serpente lagarto gecko teiu',
};

const SPECIES_OF = new Map<string, Species>(
  Object.entries(WORDS).flatMap(([species, words]) => words.split(/\s+/).map((word) => [word, species as Species] as const)),
);

/** Words before a species word that make it something else: "dente canino", "rato" in "mordida de rato". */
const NOT_THE_PATIENT_AFTER = new Set(['dente', 'dentes', 'presa', 'presas']);

export function detectSpecies(text: string): Species | null {
  const words = tokenize(text).map((token) => token.word);
  const score = new Map<Species, number>();
  let first: Species | null = null;
  words.forEach((word, index) => {
    const species = SPECIES_OF.get(word);
    if (!species || NOT_THE_PATIENT_AFTER.has(words[index - 1] ?? '')) return;
    // "porquinho-da-índia" is a guinea pig, "porquinho" alone is not.
    if (word === 'porquinho' && !(words[index + 1] === 'da' && words[index + 2] === 'india')) return;
    first ??= species;
    score.set(species, (score.get(species) ?? 0) + 1);
  });
  if (first === null) return null;
  score.set(first, score.get(first)! + 0.5);
  return [...score.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}
