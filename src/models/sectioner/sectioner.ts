// The trained sectioner: spoken headings decide where they are said; elsewhere a linear-chain CRF
// learned from a labelled pt-BR corpus (word stems, cue patterns, position, the section order),
// decoded over the whole consultation. The `rules` adapter (src/providers/sectioning/rules.ts)
// serves it behind the sectioning port; training (training/) shares `analyseSentences` with it.

import { readFileSync } from 'node:fs';
import { fold } from '../../language/fold.ts';
import { HEADING_AT_START, SPEAKER_LABEL_AT_START, TUTOR_SPEAKER, VET_SPEAKER } from '../../language/headings.ts';
import { SECTION_LABELS, SECTION_TITLES, type Section, type SectionLabel } from '../../language/sections.ts';
import { type SentenceSpan, splitSentences } from '../../language/sentences.ts';
import { type BoundaryModel, cutBand, type RunSpan, segmentStarts, splitRuns } from './boundaries.ts';
import { decode } from './decoder.ts';
import { type Speaker, sentenceFeatures } from './features.ts';
import { labelIndex, labelScores, type SectionModel } from './model.ts';
import { RETURN_VISIT, SWITCH_AT_START } from './vocabulary.ts';

// Read, not imported: the type checker need not infer a type for thousands of weights. Read on
// first use, not at import: parsed, the weights hold well over 10 MB of heap that a process
// which never sections (ROLE=api, an idle worker) need not carry (docs/benchmarks.md, idle memory).
let shippedModel: SectionModel | undefined;
export function loadShippedModel(): SectionModel {
  shippedModel ??= JSON.parse(readFileSync(new URL('./model.json', import.meta.url), 'utf8')) as SectionModel;
  return shippedModel;
}

export interface AssignedSentence extends SentenceSpan {
  label: SectionLabel;
  /** The sentence without its spoken heading ("Anamnese: tutor relata..." → "tutor relata..."); may be empty. */
  body: string;
}

interface Heading {
  label: SectionLabel;
  /** Length of the heading and its delimiter when it is to be stripped, else 0. */
  stripLength: number;
}

function findHeading(folded: string): Heading | null {
  for (const { label, pattern, stripsOnComma } of HEADING_AT_START) {
    const match = pattern.exec(folded);
    if (!match) continue;
    const delimiter = match[1];
    const standsAlone = match.index + match[0].length >= folded.trimEnd().length;
    const delimited = delimiter !== undefined && (stripsOnComma || !',.'.includes(delimiter));
    return { label, stripLength: delimited || standsAlone ? match[0].length : 0 };
  }
  return null;
}

export interface AnalysedSentence extends RunSpan {
  /** The sentence without its spoken heading; may be empty. */
  body: string;
  /** Labels a spoken heading or an opening phrase leaves it (indices into SECTION_LABELS), or null. */
  allowed: number[] | null;
  features: string[];
}

const FOLLOW_UP = labelIndex('follow_up');
const OBSERVATIONS = labelIndex('observations');
const UNIFORM = SECTION_LABELS.map(() => 0);
// Features that come from the words themselves (stems, stem pairs, openings, cue patterns).
const LEXICAL = /^(?:w|b|o|o2|c):/;

/**
 * Splits `text` and works out what the words alone cannot: spoken headings (authoritative until
 * the next heading, except that a return visit is follow-up wherever it is said) and phrases
 * that open a section ("Prescrevo", "Retorno em"). Training and labelling share it, so the model
 * learns from exactly the features it is later given.
 */
export function analyseSentences(text: string, boundary: BoundaryModel, segments: readonly { text: string }[] = []): AnalysedSentence[] {
  // Folding keeps every index, so each sentence's folded text is a slice of this one.
  const foldedText = fold(text);
  const spans = splitRuns(splitSentences(text, foldedText), text, foldedText, boundary, segmentStarts(text, segments));
  const spoken: string[] = [];
  const speakers: (Speaker | null)[] = [];
  let turn: Speaker | null = null;
  const partial: Omit<AnalysedSentence, 'features'>[] = [];
  const headingCues: string[][] = [];
  let headingLabel: SectionLabel | null = null;
  for (const span of spans) {
    const folded = foldedText.slice(span.start, span.end);
    const speaker = SPEAKER_LABEL_AT_START.exec(folded);
    const words = speaker ? folded.slice(speaker[0].length) : folded;
    const heading = speaker ? null : findHeading(folded);
    const switchTo = SWITCH_AT_START.find(({ pattern }) => pattern.test(words))?.label;
    let body = span.text;
    let allowed: number[] | null = null;
    const cues: string[] = [];
    if (heading && heading.stripLength > 0) {
      allowed = [labelIndex(heading.label)];
      body = span.text.slice(heading.stripLength).trim();
      headingLabel = heading.label;
      if (heading.label !== 'follow_up' && RETURN_VISIT.test(folded.slice(heading.stripLength))) allowed.push(FOLLOW_UP);
    } else if (heading) {
      // A heading word without its delimiter may be prose ("Retorno da Belinha, poodle de doze
      // anos..." opens a recheck's history): the model weighs it, and it ends the previous heading.
      cues.push(`hs:${heading.label}`);
      headingLabel = null;
      if (switchTo) allowed = [labelIndex(switchTo)];
    } else if (switchTo) {
      allowed = [labelIndex(switchTo)];
      headingLabel = null;
    } else if (headingLabel) {
      allowed = [labelIndex(headingLabel)];
      if (headingLabel !== 'follow_up' && RETURN_VISIT.test(words)) allowed.push(FOLLOW_UP);
    }
    spoken.push(words);
    // A label holds for the rest of its turn: "A: Bom dia. Ele tá vomitando." is A twice.
    if (speaker)
      turn = { label: speaker[1]!, role: TUTOR_SPEAKER.test(speaker[1]!) ? 'tutor' : VET_SPEAKER.test(speaker[1]!) ? 'vet' : null };
    speakers.push(turn);
    partial.push({ ...span, body, allowed });
    headingCues.push(cues);
  }
  return partial.map((sentence, index) => ({
    ...sentence,
    features: [...sentenceFeatures(spoken, index, speakers), ...headingCues[index]!],
  }));
}

/** Labels every sentence of `text`, in order. Exposed for tests and for scoring the corpus. */
export function assignSentences(
  text: string,
  model: SectionModel = loadShippedModel(),
  segments: readonly { text: string }[] = [],
): AssignedSentence[] {
  const analysed = analyseSentences(text, model.boundary, segments);
  const known = analysed.map(({ features }) => features.some((feature) => LEXICAL.test(feature) && feature in model.weights));
  // A transcript of nothing but unknown words is not clinical content the model can place.
  const nothingKnown = !known.includes(true);
  const labels = decode({
    // Unknown words carry no evidence: such a sentence follows its neighbours.
    emissions: analysed.map(({ features }, i) => (known[i] ? labelScores(model, features) : UNIFORM)),
    allowed: analysed.map(({ allowed }) => allowed ?? (nothingKnown ? [OBSERVATIONS] : null)),
    start: model.start,
    transitions: model.transitions,
    changePenalty: analysed.map((sentence) => {
      const band = cutBand(sentence);
      return band < 0 ? 0 : model.guessedChangePenalties[band]!;
    }),
  });
  const sentences: AssignedSentence[] = [];
  for (const [i, { start, end, text: pieceText, afterLineBreak, body, guessedStart, segmentStart }] of analysed.entries()) {
    const label = SECTION_LABELS[labels[i]!]!;
    const before = sentences.at(-1);
    // A guessed cut that did not change the section was only a place where it might have.
    if (before && guessedStart && !segmentStart && before.label === label) {
      before.body = before.body === '' ? pieceText : `${before.body}${text.slice(before.end, end)}`;
      before.end = end;
      before.text = text.slice(before.start, end);
      continue;
    }
    sentences.push({ start, end, text: pieceText, afterLineBreak, body, label });
  }
  return sentences;
}

/** Groups labelled sentences into sections in canonical order, skipping empty ones. */
export function buildSections(sentences: AssignedSentence[]): Section[] {
  const sections: Section[] = [];
  for (const label of SECTION_LABELS) {
    let content = '';
    for (const sentence of sentences) {
      if (sentence.label !== label || sentence.body === '') continue;
      content += content === '' ? sentence.body : `${sentence.afterLineBreak ? '\n' : ' '}${sentence.body}`;
    }
    if (content !== '') sections.push({ label, title: SECTION_TITLES[label], content });
  }
  return sections;
}
