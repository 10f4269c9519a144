// A verbatim note in its template's sections: the sectioner has given every sentence a base label;
// each template section takes the sentences of the base labels it gathers, in transcript order.
// Every base label is in exactly one template section (checked when the template is saved), so
// every sentence lands exactly once. A section that gathers one label keeps the sectioner's text as
// it is; one that gathers several interleaves their text by where it was said.

import { fold } from '../../language/fold.ts';
import type { TemplateSection } from '../../providers/drafting/port.ts';
import type { Section } from '../../providers/sectioning/port.ts';

export interface PlacedSection {
  label: string;
  title: string;
  content: string;
}

interface Word {
  /** Offsets in its section's content. */
  start: number;
  end: number;
  folded: string;
  /** Where it was said: the index of the transcript word it matched (fractional when it matched none). */
  at: number;
}

// How far a word may be looked past to find the next one said (a model's rewording, a word it dropped).
const RESYNC_WORDS = 4;
// ... and how many words must then match in a row.
const RESYNC_RUN = 4;
// How far two sections that could both have said a word are compared to decide which did.
const LOOKAHEAD_WORDS = 40;

const wordsOf = (text: string) =>
  [...text.matchAll(/\S+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length, folded: fold(match[0]), at: -1 }));

/** Whether the section's `word` is the transcript's `said` (whose stripped heading may precede it: "anamnese:tutor"). */
const sameWord = (said: string, word: string) => said === word || (said.endsWith(word) && /[:\-–—]$/.test(said.slice(0, -word.length)));

/**
 * Says where each word of each base section was said. The transcript (less the headings the
 * sectioner dropped) is an interleaving of the sections, each in its own order: walking it word by
 * word, each word is given to the section whose next word it is; when several could have said it,
 * to the one whose following words go on matching longest.
 */
function align(transcript: string, sections: readonly Section[]): Word[][] {
  const said = [...fold(transcript).matchAll(/\S+/g)].map((match) => match[0]);
  const words = sections.map((section) => wordsOf(section.content));
  const next = sections.map(() => 0);
  const run = (s: number, from: number, i: number) => {
    let length = 0;
    while (length < LOOKAHEAD_WORDS && from + length < words[s]!.length && i + length < said.length) {
      if (!sameWord(said[i + length]!, words[s]![from + length]!.folded)) break;
      length++;
    }
    return length;
  };
  said.forEach((_, i) => {
    let best: { s: number; skip: number; length: number } | undefined;
    for (let skip = 0; skip <= RESYNC_WORDS && !best; skip++) {
      words.forEach((list, s) => {
        const from = next[s]! + skip;
        if (from >= list.length) return;
        const length = run(s, from, i);
        // Skipping words is trusted only on a run of words that goes on matching (a heading's
        // "exame" must not pull "reavaliação com exame" out of its place).
        const enough = skip === 0 ? 1 : Math.min(RESYNC_RUN, list.length - from);
        if (length >= enough && (!best || length > best.length)) best = { s, skip, length };
      });
    }
    if (!best) return; // a heading the sectioner dropped
    const list = words[best.s]!;
    for (let k = 0; k < best.skip; k++) list[next[best.s]! + k]!.at = i - 0.5;
    next[best.s]! += best.skip;
    list[next[best.s]!]!.at = i;
    next[best.s]!++;
  });
  // Words never found stay right after the word before them.
  for (const list of words) {
    list.forEach((word, k) => {
      if (word.at < 0) word.at = k === 0 ? -1 : list[k - 1]!.at + 0.25;
    });
  }
  return words;
}

/** The gathered sections' words in the order said, as runs of each section's own text. */
function interleave(gathered: { content: string; words: Word[] }[]): string {
  const ordered = gathered
    .flatMap(({ words }, s) => words.map((word, k) => ({ s, k, word })))
    .sort((a, b) => a.word.at - b.word.at || a.s - b.s || a.k - b.k);
  let text = '';
  for (let i = 0; i < ordered.length; ) {
    const { s, k } = ordered[i]!;
    let j = i + 1;
    while (j < ordered.length && ordered[j]!.s === s && ordered[j]!.k === ordered[j - 1]!.k + 1) j++;
    const { content, words } = gathered[s]!;
    const piece = content.slice(words[k]!.start, ordered[j - 1]!.word.end);
    const lineBreak = k > 0 && content.slice(words[k - 1]!.end, words[k]!.start).includes('\n');
    text += text === '' ? piece : `${lineBreak ? '\n' : ' '}${piece}`;
    i = j;
  }
  return text;
}

/** The template's sections that hold something, in the template's order. */
export function placeInTemplate(transcript: string, sections: readonly Section[], template: readonly TemplateSection[]): PlacedSection[] {
  let aligned: Word[][] | undefined;
  const placed: PlacedSection[] = [];
  for (const { label, title, includes } of template) {
    const gathered = sections.flatMap((section, index) => ((includes as readonly string[]).includes(section.label) ? [index] : []));
    if (gathered.length === 0) continue;
    if (gathered.length === 1) {
      placed.push({ label, title, content: sections[gathered[0]!]!.content });
      continue;
    }
    aligned ??= align(transcript, sections);
    placed.push({
      label,
      title,
      content: interleave(gathered.map((index) => ({ content: sections[index]!.content, words: aligned![index]! }))),
    });
  }
  return placed;
}
