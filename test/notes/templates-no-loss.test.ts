// Property test: whatever the template, a verbatim note holds the same sentences. Over the labelled
// corpus (every style: dictation with and without headings, dialogue), with the real rules
// sectioner, any template that puts every base label in exactly one section — in any order, with
// sections that gather several labels or none — gives each sentence of the `padrao` note exactly as
// many times as `padrao` does, in the section that gathers its label, and no other text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignSentences } from '../../src/models/sectioner/sectioner.ts';
import { writeSections } from '../../src/notes/processing/write-sections.ts';
import { PADRAO, SOAP } from '../../src/notes/templates/builtin-templates.ts';
import { BASE_SECTIONS, type TemplateSection } from '../../src/providers/drafting/port.ts';
import { SECTION_LABELS } from '../../src/providers/sectioning/port.ts';
import { createRulesSectioner } from '../../src/providers/sectioning/rules.ts';
import { loadWholeCorpus, transcriptText } from '../providers/corpus/corpus.ts';

const corpus = loadWholeCorpus().map(transcriptText);
const providers = { sectioner: createRulesSectioner(), drafter: null };
const signal = new AbortController().signal;
const write = (text: string, template: readonly TemplateSection[]) =>
  writeSections('verbatim', { text, segments: [], language: 'pt' }, template, providers, signal);

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const occurrences = (haystack: string, needle: string) => squash(haystack).split(needle).length - 1;
/** The note's words, sorted: the same multiset means no text added, dropped or glued together. */
const wordsOf = (sections: { content: string }[]) =>
  sections
    .flatMap((section) => section.content.split(/\s+/))
    .filter(Boolean)
    .sort();

/** A template from a draw: each base label to one of up to 8 sections, plus empty ones, in a drawn order. */
const ALL_IN_ONE: TemplateSection = { label: 'nota', title: 'Nota', includes: [...SECTION_LABELS], instructions: null };
const drawn = fc
  .record({
    slots: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: SECTION_LABELS.length, maxLength: SECTION_LABELS.length }),
    empty: fc.integer({ min: 0, max: 2 }),
    order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], { minLength: 10, maxLength: 10 }),
  })
  .map(({ slots, empty, order }): TemplateSection[] => {
    const used = [...new Set(slots)];
    const sections = [
      ...used.map((slot) => ({
        label: `s${slot}`,
        title: `Seção ${slot}`,
        includes: SECTION_LABELS.filter((_, i) => slots[i] === slot),
        instructions: null,
      })),
      ...Array.from({ length: empty }, (_, i) => ({ label: `vazia_${i}`, title: 'Vazia', includes: [], instructions: null })),
    ];
    return order.filter((i) => i < sections.length).map((i) => sections[i]!);
  });
/** The built-in SOAP and a single section of everything weigh as much as any drawn template. */
const templates = fc.oneof(fc.constant(SOAP.sections), fc.constant([ALL_IN_ONE]), drawn);

const sentenceCache = new Map<number, ReturnType<typeof assignSentences>>();
/** The sentences the rules sectioner labelled (their text less any spoken heading). */
function sentencesOf(index: number) {
  let sentences = sentenceCache.get(index);
  if (!sentences) {
    sentences = assignSentences(corpus[index]!).filter((sentence) => sentence.body !== '');
    sentenceCache.set(index, sentences);
  }
  return sentences;
}

const padraoCache = new Map<number, Awaited<ReturnType<typeof write>>>();
async function padraoOf(index: number) {
  let written = padraoCache.get(index);
  if (!written) {
    written = await write(corpus[index]!, BASE_SECTIONS);
    padraoCache.set(index, written);
  }
  return written;
}

describe('templates never lose or duplicate a sentence', () => {
  it('the corpus is there to draw from', () => {
    expect(corpus.length).toBeGreaterThan(100);
    expect(PADRAO.sections.map((section) => section.label)).toEqual([...SECTION_LABELS]);
  });

  it('every template holds the multiset of sentences of padrao, each in the section gathering its label', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: corpus.length - 1 }), templates, async (index, template) => {
        const padrao = await padraoOf(index);
        const written = await write(corpus[index]!, template);

        // Sections in the template's order, only those holding something, labels and titles its own.
        const expectedLabels = template
          .filter((section) => section.includes.some((base) => padrao.sections.some((s) => s.label === base)))
          .map((section) => section.label);
        expect(written.sections.map((section) => section.label)).toEqual(expectedLabels);
        for (const section of written.sections) expect(section.title).toBe(template.find((t) => t.label === section.label)!.title);

        // No other text: the same words as padrao.
        expect(wordsOf(written.sections)).toEqual(wordsOf(padrao.sections));

        // Each sentence the sectioner labelled: as often in the section gathering its label as padrao
        // has it in the sections that section gathers, and as often in the whole note.
        for (const sentence of sentencesOf(index)) {
          const holder = template.find((section) => section.includes.includes(sentence.label))!;
          const placed = written.sections.find((section) => section.label === holder.label)!;
          const needle = squash(sentence.body);
          const inPadrao = (labels: readonly string[]) =>
            padrao.sections.filter((s) => labels.includes(s.label)).reduce((sum, s) => sum + occurrences(s.content, needle), 0);
          expect(occurrences(placed.content, needle), `"${needle}" in ${holder.label}`).toBe(inPadrao(holder.includes));
          const everywhere = written.sections.reduce((sum, s) => sum + occurrences(s.content, needle), 0);
          expect(everywhere).toBe(inPadrao(SECTION_LABELS));
        }
      }),
      { numRuns: 200, seed: 30_2026 },
    );
  });

  it('one section gathering all six holds the sentences in transcript order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: corpus.length - 1 }), async (index) => {
        const text = corpus[index]!;
        const written = await write(text, [ALL_IN_ONE]);
        const spoken = sentencesOf(index);
        expect(written.sections.map((section) => section.label)).toEqual(spoken.length > 0 ? ['nota'] : []);
        expect(squash(written.sections[0]?.content ?? '')).toBe(squash(spoken.map((sentence) => sentence.body).join(' ')));
      }),
      { numRuns: 150, seed: 30_2027 },
    );
  });
});
