// From the model's answer to the note's sections: the answer's shape and citations are checked,
// then every sentence is grounded against the lines it cites. A sentence that fails is removed
// from the note and kept, word for word, in a review flag (docs/decisions.md: removed, not marked),
// so nothing unproven reaches the text a clinic copies while the vet still sees what was dropped.

import { z } from 'zod';
import { ungroundedTokens } from './grounding/check.ts';
import type { NumberedLine } from './lines.ts';
import { BASE_SECTIONS, type DraftedSection, type DraftOutcome, type ReviewFlag, type TemplateSection, type TimeRange } from './port.ts';

export const INVALID_RESPONSE = 'DRAFTING_INVALID_RESPONSE';

/** The answer's shape; its labels must be the asked sections' own. */
const modelDraft = (labels: [string, ...string[]]) =>
  z.object({
    sections: z.array(
      z.object({
        label: z.enum(labels),
        sentences: z.array(z.object({ text: z.string(), segments: z.array(z.number()) })),
      }),
    ),
  });
type ModelSentence = { text: string; segments: number[] };

const whole = (reason: 'drafting_invalid' | 'drafting_unavailable'): ReviewFlag => ({
  section: null,
  sentence: null,
  reason,
  token: null,
});

/** A draft that cannot be used: the note is written verbatim, and the flags say why. */
export function invalidDraft(message: string, details: ReviewFlag[] = []): DraftOutcome {
  return { ok: false, code: INVALID_RESPONSE, message, flags: [whole('drafting_invalid'), ...details] };
}

export function unavailableDraft(code: string, message: string): DraftOutcome {
  return { ok: false, code, message, flags: [whole('drafting_unavailable')] };
}

/** Time ranges once each, in time order. */
function evidenceOf(ranges: TimeRange[]): TimeRange[] {
  const unique = new Map(ranges.map((range) => [`${range.start}-${range.end}`, range]));
  return [...unique.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}

export function reviewDraft(answer: unknown, lines: NumberedLine[], asked: readonly TemplateSection[] = BASE_SECTIONS): DraftOutcome {
  const parsed = modelDraft(asked.map((section) => section.label) as [string, ...string[]]).safeParse(answer);
  if (!parsed.success) return invalidDraft('the answer does not match the schema (unknown label or missing field)');

  // Sections in the order asked (the template's), a label given twice merged.
  const byLabel = new Map<string, ModelSentence[]>();
  for (const { label, sentences } of parsed.data.sections) byLabel.set(label, [...(byLabel.get(label) ?? []), ...sentences]);
  const titles = new Map(asked.map((section) => [section.label, section.title]));
  const drafted = asked
    .map((section) => section.label)
    .filter((label) => byLabel.has(label))
    .map((label) => ({
      label,
      sentences: byLabel
        .get(label)!
        .map((sentence) => ({ ...sentence, text: sentence.text.replace(/\s+/g, ' ').trim() }))
        .filter((sentence) => sentence.text !== ''),
    }));

  // A line number that does not exist means the model lost track of the numbering: none of its
  // citations can be trusted, so the whole draft goes (each offending sentence is named).
  const validLine = (n: number) => Number.isInteger(n) && n >= 1 && n <= lines.length;
  const outOfRange: ReviewFlag[] = drafted.flatMap(({ label, sentences }) =>
    sentences.flatMap(({ text, segments }) =>
      segments
        .filter((n) => !validLine(n))
        .slice(0, 1)
        .map((n) => ({ section: label, sentence: text, reason: 'invalid_citation' as const, token: String(n) })),
    ),
  );
  if (outOfRange.length > 0) return invalidDraft(`the answer cites lines outside 1..${lines.length}`, outOfRange);

  const flags: ReviewFlag[] = [];
  const sections: DraftedSection[] = [];
  for (const { label, sentences } of drafted) {
    const kept: string[] = [];
    const ranges: TimeRange[] = [];
    for (const { text, segments } of sentences) {
      if (segments.length === 0) {
        flags.push({ section: label, sentence: text, reason: 'no_citation', token: null });
        continue;
      }
      const cited = [...new Set(segments)].sort((a, b) => a - b).map((n) => lines[n - 1]!);
      const missing = ungroundedTokens(text, cited.map((line) => line.text).join('\n'));
      if (missing.length > 0) {
        for (const token of missing) flags.push({ section: label, sentence: text, reason: 'ungrounded', token });
        continue;
      }
      kept.push(text);
      for (const line of cited) if (line.time) ranges.push(line.time);
    }
    if (kept.length > 0) sections.push({ label, title: titles.get(label)!, content: kept.join(' '), evidence: evidenceOf(ranges) });
  }

  if (sections.length === 0 && lines.length > 0) {
    return invalidDraft(drafted.length === 0 ? 'the model returned no sections' : 'no drafted sentence could be grounded', flags);
  }
  return { ok: true, sections, flags };
}
