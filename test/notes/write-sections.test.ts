import { describe, expect, it } from 'vitest';
import { writeSections } from '../../src/notes/processing/write-sections.ts';
import { BASE_SECTIONS, type Drafter } from '../../src/providers/drafting/port.ts';
import { createRulesSectioner } from '../../src/providers/sectioning/rules.ts';

const transcript = {
  text: 'Anamnese: tutora relata tosse há cinco dias. Tratamento: xarope por sete dias.',
  segments: [
    { start: 0, end: 3, text: 'Anamnese: tutora relata tosse há cinco dias.' },
    { start: 3, end: 6, text: 'Tratamento: xarope por sete dias.' },
  ],
  language: 'pt',
};
const sectioner = createRulesSectioner();
const signal = new AbortController().signal;
const refusingDrafter: Drafter = {
  name: 'never',
  draft: () => {
    throw new Error('a verbatim note must not reach the drafter');
  },
};

describe('writeSections', () => {
  it('writes a verbatim note with the sectioner, with evidence, without asking the drafter', async () => {
    const written = await writeSections('verbatim', transcript, BASE_SECTIONS, { sectioner, drafter: refusingDrafter }, signal);
    expect(written).toMatchObject({ style: 'verbatim', reviewFlags: [], fallback: null });
    expect(written.sections.map((section) => [section.label, section.evidence])).toEqual([
      ['anamnesis', [{ start: 0, end: 3 }]],
      ['treatment', [{ start: 3, end: 6 }]],
    ]);
  });

  it('writes a clinical note left without a drafter verbatim, flagged drafting_unavailable', async () => {
    const written = await writeSections('clinical', transcript, BASE_SECTIONS, { sectioner, drafter: null }, signal);
    expect(written.style).toBe('verbatim');
    expect(written.reviewFlags).toEqual([{ section: null, sentence: null, reason: 'drafting_unavailable', token: null }]);
    expect(written.fallback?.code).toBe('DRAFTING_NOT_CONFIGURED');
    expect(written.sections.map((section) => section.label)).toEqual(['anamnesis', 'treatment']);
  });
});
