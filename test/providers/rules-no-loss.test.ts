// Property test: whatever the transcript looks like, the rules sectioner neither loses nor
// duplicates a sentence. Transcripts are generated from a seeded PRNG (reproducible failures)
// out of headings, speaker labels, cue words and noise, with unique marker words per sentence.
// (Words ending in ":" are left to the run-on test: mid-text "exame físico:" rightly starts a new sentence.)

import { describe, expect, it } from 'vitest';
import { assignSentences, buildSections } from '../../src/models/sectioner/sectioner.ts';
import { mulberry32 as prng } from '../../src/models/sectioner/training/training.ts';

const HEADINGS = [
  'Anamnese',
  'histórico',
  'Queixa principal',
  'EXAME FÍSICO',
  'exame fisico',
  'Ao exame',
  'Diagnóstico',
  'suspeita',
  'Tratamento',
  'Conduta',
  'Prescrição',
  'Retorno',
  'Reavaliação',
  'Observações',
  'Obs',
];
const DELIMITERS = [': ', ' - ', ', ', '. ', ' — ', ' '];
const SPEAKERS = ['Vet: ', 'Tutor: ', 'Tutora: ', 'Dra. Ana: ', 'Médica veterinária: '];
const WORDS = [
  'tutor',
  'relata',
  'vômito',
  'há',
  'três',
  'dias',
  'temperatura',
  '39,5',
  'mucosas',
  'palpação',
  'suspeita',
  'compatível',
  'com',
  'prescrevo',
  'mg/kg',
  'a',
  'cada',
  '12',
  'horas',
  'dieta',
  'retorno',
  'em',
  'reavaliar',
  'bom',
  'dia',
  'Dr.',
  'cão',
  'gata',
  'apetite',
  'sem',
  'alterações',
  'e',
  'o',
  'de',
  'conduta',
  'obrigado',
  'peso',
  '4,2',
  'kg',
  '3.5',
  'Sr.',
  'ok',
];
const TERMINATORS = ['.', '?', '!', '...', '.', '.'];
const JOINERS = [' ', '\n', '  ', ' \n', '\t'];

interface Generated {
  text: string;
  /** The text each sentence must contribute to the sections, exactly once. */
  bodies: string[];
}

function generate(random: () => number, index: number): Generated {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const sentences: string[] = [];
  const bodies: string[] = [];
  const count = 1 + Math.floor(random() * 14);
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 1 + Math.floor(random() * 9) }, () => pick(WORDS));
    // A marker no cue or heading can match makes each sentence findable in the output.
    const body = `${[`q${index}x${i}z`, ...words].join(' ')}${pick(TERMINATORS)}`;
    const roll = random();
    const prefix = roll < 0.35 ? `${pick(HEADINGS)}${pick([': ', ' - ', ' — '])}` : roll < 0.6 ? pick(SPEAKERS) : '';
    sentences.push(prefix + body);
    bodies.push(prefix.match(/^(?:Vet|Tutora?|Dra\. Ana|Médica veterinária): /) ? prefix + body : body);
  }
  let text = '';
  for (const sentence of sentences) text += (text === '' ? '' : pick(JOINERS)) + sentence;
  return { text, bodies };
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('rules sectioner never loses or duplicates a sentence', () => {
  it('every generated sentence appears exactly once across the sections (400 transcripts)', () => {
    const random = prng(20240611);
    for (let index = 0; index < 400; index++) {
      const { text, bodies } = generate(random, index);
      const sections = buildSections(assignSentences(text));
      const all = squash(sections.map((s) => s.content).join(' '));
      for (const body of bodies) {
        expect(occurrences(all, squash(body)), `sentence "${body}" in transcript ${JSON.stringify(text)}`).toBe(1);
      }
      expect(new Set(sections.map((s) => s.label)).size).toBe(sections.length);
      expect(sections.every((s) => s.content.trim() !== '')).toBe(true);
    }
  });

  it('keeps every character of unpunctuated run-on text and strips only leading headings', () => {
    const random = prng(7);
    for (let index = 0; index < 200; index++) {
      const pieces = Array.from({ length: 10 + Math.floor(random() * 60) }, () =>
        random() < 0.08
          ? `${HEADINGS[Math.floor(random() * HEADINGS.length)]}${DELIMITERS[Math.floor(random() * DELIMITERS.length)]}`
          : WORDS[Math.floor(random() * WORDS.length)]!,
      );
      const text = pieces.join(' ');
      const sentences = assignSentences(text);
      expect(
        sentences
          .map((s) => s.text)
          .join('')
          .replace(/\s/g, ''),
      ).toBe(text.replace(/\s/g, ''));
      for (const sentence of sentences) expect(sentence.text.endsWith(sentence.body)).toBe(true);
      const sectionText = buildSections(sentences)
        .map((s) => s.content)
        .join('');
      expect(sectionText.replace(/\s/g, '')).toHaveLength(
        sentences
          .map((s) => s.body)
          .join('')
          .replace(/\s/g, '').length,
      );
    }
  });
});
