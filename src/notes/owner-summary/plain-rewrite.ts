import type { Drafter, GroundingCheck } from '../../providers/drafting/port.ts';
import type { SummaryReviewFlag } from './summary.schemas.ts';
import { SUMMARY_MAX_CHARACTERS } from './summary-text.ts';

/** A rewrite that hangs is given up: the text built from the note is there already. */
const REWRITE_TIMEOUT_MS = 30_000;

const INSTRUCTIONS =
  `Escreva no máximo ${SUMMARY_MAX_CHARACTERS} caracteres, frases curtas, tratando o tutor por você. ` +
  'Mantenha a saudação, cada medicamento com sua dose, via, intervalo e duração, a data de retorno, o nome da clínica e a última frase.';

/**
 * The drafting server's plain-language rewrite of the summary, used only when it passes the
 * grounding check against the note and fits; otherwise the deterministic text, with flags saying why.
 */
export async function plainRewrite(
  drafter: Drafter,
  grounding: GroundingCheck,
  basis: { deterministic: string; source: string },
): Promise<{ text: string; flags: SummaryReviewFlag[] }> {
  const fallback = (flags: SummaryReviewFlag[]) => ({ text: basis.deterministic, flags });
  if (!drafter.rewrite) return fallback([{ reason: 'drafting_unavailable', token: null }]);
  let outcome: Awaited<ReturnType<NonNullable<Drafter['rewrite']>>>;
  try {
    outcome = await drafter.rewrite({ text: basis.deterministic, instructions: INSTRUCTIONS }, AbortSignal.timeout(REWRITE_TIMEOUT_MS));
  } catch {
    // Only the timeout's abort throws: the server was too slow.
    return fallback([{ reason: 'drafting_unavailable', token: null }]);
  }
  if (!outcome.ok) {
    return fallback([{ reason: outcome.code === 'DRAFTING_INVALID' ? 'drafting_invalid' : 'drafting_unavailable', token: null }]);
  }
  const tokens = grounding(outcome.text, basis.source);
  if (tokens.length > 0) return fallback(tokens.map((token) => ({ reason: 'ungrounded', token })));
  if (outcome.text.length > SUMMARY_MAX_CHARACTERS) return fallback([{ reason: 'too_long', token: String(outcome.text.length) }]);
  return { text: outcome.text, flags: [] };
}
