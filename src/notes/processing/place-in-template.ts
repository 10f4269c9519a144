// A verbatim note in its template's sections: the sectioner has given every sentence a base label;
// each template section takes the sentences of the base labels it gathers, in transcript order.
// Every base label is in exactly one template section (checked when the template is saved), so
// every sentence lands exactly once. A section that gathers one label keeps the sectioner's text as
// it is; one that gathers several interleaves their sentences by where they were said.

import type { TemplateSection } from '../../providers/drafting/port.ts';
import type { Section } from '../../providers/sectioning/port.ts';
import { fold, splitSentences } from '../../providers/sectioning/sentences.ts';

export interface PlacedSection {
  label: string;
  title: string;
  content: string;
}

interface Piece {
  text: string;
  /** Where it was said: its offset in the (folded, whitespace-collapsed) transcript. */
  at: number;
  afterLineBreak: boolean;
}

const comparable = (text: string) => fold(text).replace(/\s+/g, ' ');

/**
 * The pieces of each base section, located in the transcript. A section's sentences are in
 * transcript order among themselves (both sectioners keep it), so each is looked for after the
 * previous one, at an offset no other piece took; a piece the transcript does not hold word for word
 * (a heading stripped mid-sentence, a model's rewording) stays right after its predecessor.
 */
function locate(transcript: string, sections: readonly Section[]): Map<string, Piece[]> {
  const haystack = comparable(transcript);
  const taken = new Set<number>();
  const pieces = new Map<string, Piece[]>();
  for (const section of sections) {
    let cursor = 0;
    let previous = -1;
    const located: Piece[] = [];
    for (const sentence of splitSentences(section.content)) {
      const needle = comparable(sentence.text);
      let at = haystack.indexOf(needle, cursor);
      while (at !== -1 && taken.has(at)) at = haystack.indexOf(needle, at + 1);
      if (at === -1) at = previous + 0.5;
      else {
        taken.add(at);
        cursor = at + needle.length;
      }
      previous = at;
      located.push({ text: sentence.text, at, afterLineBreak: sentence.afterLineBreak });
    }
    pieces.set(section.label, [...(pieces.get(section.label) ?? []), ...located]);
  }
  return pieces;
}

/** The template's sections that hold something, in the template's order. */
export function placeInTemplate(transcript: string, sections: readonly Section[], template: readonly TemplateSection[]): PlacedSection[] {
  const byLabel = new Map<string, Section[]>();
  for (const section of sections) byLabel.set(section.label, [...(byLabel.get(section.label) ?? []), section]);
  let pieces: Map<string, Piece[]> | undefined;
  const placed: PlacedSection[] = [];
  for (const { label, title, includes } of template) {
    const gathered = includes.flatMap((base) => byLabel.get(base) ?? []);
    if (gathered.length === 0) continue;
    if (gathered.length === 1) {
      placed.push({ label, title, content: gathered[0]!.content });
      continue;
    }
    pieces ??= locate(transcript, sections);
    const ordered = [...new Set(gathered.map((section) => section.label))]
      .flatMap((base) => pieces!.get(base) ?? [])
      .map((piece, index) => ({ piece, index }))
      .sort((a, b) => a.piece.at - b.piece.at || a.index - b.index)
      .map(({ piece }) => piece);
    const content = ordered.reduce(
      (text, piece) => (text === '' ? piece.text : `${text}${piece.afterLineBreak ? '\n' : ' '}${piece.text}`),
      '',
    );
    placed.push({ label, title, content });
  }
  return placed;
}
