// Mucous membranes: a colour word after "mucosas" (or "gengivas", "conjuntivas"), as many as were
// said: "mucosas pálidas e levemente ictéricas" is two findings.

import type { MucousMembranes } from '../store/vitals.schemas.ts';

export const MUCOSA_CUES = new Set(['mucosa', 'mucosas', 'mm', 'gengiva', 'gengivas', 'conjuntiva', 'conjuntivas']);

const COLOURS: Record<string, MucousMembranes> = {};
const colour = (value: MucousMembranes, words: string) => {
  for (const word of words.split(' ')) COLOURS[word] = value;
};
colour(
  'normal',
  'normocorada normocoradas normocorado normocorados rosea roseas roseo roseos rosada rosadas rosado rosados rosa normocromicas normais normal',
);
colour(
  'pale',
  'hipocorada hipocoradas hipocorado hipocorados palida palidas palido palidos descorada descoradas esbranquicada esbranquicadas anemicas anemica porcelana',
);
colour(
  'hyperemic',
  'hiperemica hiperemicas hiperemico hiperemicos hiperemiada hiperemiadas congesta congestas congestionada congestionadas avermelhada avermelhadas vermelha vermelhas injetada injetadas',
);
colour('icteric', 'icterica ictericas icterico ictericos ictericia amarelada amareladas amarelas');
colour('cyanotic', 'cianotica cianoticas cianotico cianoticos cianose azulada azuladas arroxeada arroxeadas');

/** What may stand between the cue and a colour, or between two colours. */
const BETWEEN = new Set(
  (
    'oral orais ocular oculares conjuntival conjuntivais gengival gengivais bucal bucais vaginal peniana aparentes visiveis ' +
    'estao esta ta tao tava estavam estava se apresentam apresentando apresentavam apresenta com de coloracao cor ' +
    'levemente discretamente ligeiramente moderadamente intensamente severamente bem muito pouco um meio bastante e ' +
    'umidas umida secas seca brilhantes pegajosas normohidratadas hidratadas as a dele dela todas ainda porem mas ' +
    'leve levemente discreta moderada'
  ).split(' '),
);
const NEGATIONS = new Set(['nao', 'sem', 'nem']);
const PALE_AFTER_PINK = new Set(['palido', 'palida', 'palidas', 'palidos', 'claro', 'clara', 'claras']);

export interface MucousFinding {
  value: MucousMembranes;
  /** Token range [first, end): from the cue to the colour. */
  first: number;
  end: number;
}

/** The colours said after the cue at `at` (none when it is not a cue or no colour follows). */
export function mucousAt(words: string[], at: number): MucousFinding[] {
  if (!MUCOSA_CUES.has(words[at]!)) return [];
  const found: MucousFinding[] = [];
  let negated = false;
  for (let k = at + 1, gap = 0; k < words.length && gap <= 4; k++) {
    const word = words[k]!;
    if (NEGATIONS.has(word)) {
      negated = true;
      gap++;
      continue;
    }
    // "rosadinhas", "amareladinha": spoken Portuguese shrinks words fondly.
    let value = COLOURS[word] ?? COLOURS[word.replace(/z?inh([oa]s?)$/, '$1')];
    // "mucosas normais" says normal; "normal" after a colour ("... e TPC normal") belongs to the next finding.
    if (value === 'normal' && (word === 'normal' || word === 'normais') && found.length > 0) break;
    if (value !== undefined) {
      // "rosa-pálidas" is pale, not normal and pale.
      if (value === 'normal' && PALE_AFTER_PINK.has(words[k + 1] ?? '')) {
        value = 'pale';
        k++;
      }
      if (!negated && !found.some((finding) => finding.value === value)) found.push({ value, first: at, end: k + 1 });
      negated = false;
      gap = 0;
      continue;
    }
    if (!BETWEEN.has(word)) break;
    gap++;
  }
  return found;
}
