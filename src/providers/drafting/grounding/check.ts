// The grounding check: a drafted sentence may only state numbers, doses, units, frequencies,
// durations, drugs and sides that the transcript lines it cites actually contain.

import { claimsOf, isSaid, whatWasSaid } from './claims.ts';

/** What the sentence states that the cited text does not say, as the sentence wrote it, once each. */
export function ungroundedTokens(sentence: string, citedText: string): string[] {
  const said = whatWasSaid(citedText);
  const missing = claimsOf(sentence)
    .filter((claim) => !isSaid(claim, said))
    .map((claim) => claim.token);
  return [...new Set(missing)];
}
