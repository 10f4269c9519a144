// The `rules` sectioner: the trained pt-BR sectioner (src/models/sectioner/) behind the sectioning
// port. No network. It is the default and the fallback of the `openai` sectioner, so it must never
// fail and never drop a sentence.

import { assignSentences, buildSections, loadShippedModel } from '../../models/sectioner/sectioner.ts';
import type { Sectioner } from './port.ts';

export function createRulesSectioner(): Sectioner {
  return {
    name: 'rules',
    async section(input, signal) {
      signal.throwIfAborted();
      return buildSections(assignSentences(input.text, loadShippedModel(), input.segments));
    },
  };
}
