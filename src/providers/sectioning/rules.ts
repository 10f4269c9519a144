// The `rules` sectioner: spoken headings and pt-BR cue words, no network. It is the default and
// the fallback of the `openai` sectioner, so it must never fail and never drop a sentence.

import { SECTION_LABELS, SECTION_TITLES, type Section, type Sectioner, type SectionLabel } from './port.ts';
import { fold, type SentenceSpan, splitSentences } from './sentences.ts';
import { CUES, HEADING_AT_START, SPEAKER_LABEL_AT_START, SWITCH_AT_START, TUTOR_SPEAKER } from './vocabulary.ts';

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

/** "Ele comeu algo diferente?" asks for history; "Volta com o colar, tá?" only seeks a nod. */
function isRealQuestion(folded: string): boolean {
  const trimmed = folded.trimEnd();
  return trimmed.endsWith('?') && !/\b(?:ta|ok|certo|ne|combinado|beleza|entendeu|viu)\s*\?$/.test(trimmed);
}

function scoreCues(folded: string, isTutor: boolean): Map<SectionLabel, number> {
  const scores = new Map<SectionLabel, number>();
  for (const label of SECTION_LABELS) {
    let score = 0;
    for (const [pattern, weight] of CUES[label]) if (pattern.test(folded)) score += weight;
    scores.set(label, score);
  }
  // In a dialogue the tutor mostly tells the history; a question from the vet is history-taking.
  if (isTutor) scores.set('anamnesis', (scores.get('anamnesis') ?? 0) + 3);
  if (isRealQuestion(folded)) scores.set('anamnesis', (scores.get('anamnesis') ?? 0) + 2);
  return scores;
}

function bestByCues(scores: Map<SectionLabel, number>, current: SectionLabel | null): SectionLabel | null {
  let best: SectionLabel | null = null;
  let bestScore = 0;
  for (const label of SECTION_LABELS) {
    // The current section wins ties: consecutive sentences usually belong together.
    const score = (scores.get(label) ?? 0) + (label === current ? 0.5 : 0);
    if (score > bestScore) {
      best = label;
      bestScore = score;
    }
  }
  return bestScore >= 1 ? best : null;
}

/** Labels every sentence of `text`, in order. Exposed for tests and for scoring the corpus. */
export function assignSentences(text: string): AssignedSentence[] {
  const assigned: AssignedSentence[] = [];
  // A spoken heading holds until the next one; cue words only decide when no heading is active.
  let headingLabel: SectionLabel | null = null;
  let current: SectionLabel | null = null;

  for (const span of splitSentences(text)) {
    const folded = fold(span.text);
    const speaker = SPEAKER_LABEL_AT_START.exec(folded);
    const spoken = speaker ? folded.slice(speaker[0].length) : folded;
    const heading = speaker ? null : findHeading(folded);
    const switchTo = SWITCH_AT_START.find(({ pattern }) => pattern.test(spoken))?.label;

    let label: SectionLabel;
    let body = span.text;
    if (heading) {
      label = heading.label;
      body = span.text.slice(heading.stripLength).trim();
      headingLabel = heading.stripLength > 0 ? label : null;
    } else if (switchTo) {
      label = switchTo;
      headingLabel = null;
    } else if (headingLabel) {
      label = headingLabel;
    } else {
      const isTutor = speaker !== null && TUTOR_SPEAKER.test(speaker[1]!);
      label = bestByCues(scoreCues(spoken, isTutor), current) ?? current ?? 'observations';
    }
    current = label;
    assigned.push({ ...span, label, body });
  }
  return assigned;
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

export function createRulesSectioner(): Sectioner {
  return {
    name: 'rules',
    async section(input, signal) {
      signal.throwIfAborted();
      return buildSections(assignSentences(input.text));
    },
  };
}
