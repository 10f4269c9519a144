import { describe, expect, it } from 'vitest';
import { verbatimEvidence } from '../../src/notes/processing/verbatim-evidence.ts';

const section = (label: 'anamnesis' | 'physical_exam' | 'treatment', content: string) => ({ label, title: label, content });

describe('evidence of a verbatim note', () => {
  it('gives each section the segments whose sentences it holds, headings and speaker labels aside', () => {
    const sections = [
      section('anamnesis', 'Tutora relata vômito há dois dias.\nSem diarreia.'),
      section('physical_exam', 'Temperatura 39,4 e abdômen dolorido.'),
      section('treatment', 'Omeprazol um miligrama por quilo.'),
    ];
    const segments = [
      { start: 0, end: 3, text: 'Anamnese: tutora relata vômito há dois dias.' },
      // One segment running over two sections belongs to both.
      { start: 3, end: 7.5, text: 'Sem diarreia. Exame físico: temperatura 39,4 e abdômen dolorido.' },
      { start: 7.5, end: 9, text: 'Vet: Omeprazol um miligrama por quilo.' },
      { start: 9, end: 10, text: 'Ok.' },
    ];
    expect(verbatimEvidence(sections, segments)).toEqual([
      [
        { start: 0, end: 3 },
        { start: 3, end: 7.5 },
      ],
      [{ start: 3, end: 7.5 }],
      [{ start: 7.5, end: 9 }],
    ]);
  });

  it('is empty without timed segments', () => {
    expect(verbatimEvidence([section('anamnesis', 'Tutora relata vômito.')], [])).toEqual([[]]);
  });
});
