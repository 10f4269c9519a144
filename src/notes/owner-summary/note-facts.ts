import type { SectionRow } from '../store/notes.repo.ts';
import { EMPTY_PLAN, type Plan } from '../store/plan.schemas.ts';
import type { SummaryFacts } from './summary-text.ts';

// What of a note the owner summary says, and what its text is checked against: the note's own
// words (sections, plan), nothing else.

export interface SummaryNote {
  name: string;
  visitDate: string | null;
  plan: unknown;
  tutor: { name: string | null } | null;
  template: { sections: { label: string; includes: string[] }[] } | null;
}

/** Sentences that tell the tutor when to come back at once, as the note wrote them. */
const WARNING =
  /\b(se|caso)\b[^.!?]*\b(pior|vomit|sangr|não (melhor|com|beb|urin)|parar de|apresentar|febre|convuls|inchaço|apatia)|sinais? de alerta|\bimediatamente\b|\bemergência\b|\burgência\b/i;

/** Sentences about the treatment or the return, not the diagnosis. */
const TREATMENT = /\b(prescrev|vou passar|receit|retorno|retornar|medica[çc][ãa]o)/i;

export function factsOf(note: SummaryNote, sections: readonly SectionRow[], clinicName: string): SummaryFacts {
  const plan = (note.plan as Plan | null) ?? EMPTY_PLAN;
  return {
    tutorName: note.tutor?.name ?? null,
    patientName: note.name,
    visitDate: note.visitDate,
    diagnosis: diagnosisOf(note, sections),
    plan,
    warnings: warningsOf(sections),
    clinicName,
  };
}

/** The sections written for the `diagnosis` label (the SOAP template's "Avaliação" gathers it too). */
function diagnosisOf(note: SummaryNote, sections: readonly SectionRow[]): string | null {
  const labels = new Set(
    (note.template?.sections ?? [])
      .filter((section) => section.label === 'diagnosis' || section.includes.includes('diagnosis'))
      .map((section) => section.label),
  );
  labels.add('diagnosis');
  // What the sectioner left there of the treatment or the return is said by the instructions already.
  const drugs = ((note.plan as Plan | null)?.medications ?? []).map((item) => item.drug.toLowerCase());
  const text = sections
    .filter((section) => labels.has(section.label))
    .flatMap((section) => section.content.split(/(?<=[.!?])\s+/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence && !TREATMENT.test(sentence) && !drugs.some((drug) => sentence.toLowerCase().includes(drug)))
    .join(' ');
  return text || null;
}

function warningsOf(sections: readonly SectionRow[]): string[] {
  const sentences = sections.flatMap((section) => section.content.split(/(?<=[.!?])\s+/));
  return [...new Set(sentences.map((sentence) => sentence.trim()).filter((sentence) => WARNING.test(sentence)))].slice(0, 3);
}

/**
 * The text a summary is grounded in: the note's sections and the words of its plan items, and the
 * deterministic summary of the note, which says only what those hold (its dates and plain words are
 * derived from the note, so a vet's edit may keep them).
 */
export function groundingSourceOf(note: SummaryNote, sections: readonly SectionRow[], deterministic: string): string {
  const plan = (note.plan as Plan | null) ?? EMPTY_PLAN;
  const planWords = [...plan.medications, ...plan.exams, ...plan.vaccines, ...plan.follow_ups].map((item) => item.text);
  return [...sections.map((section) => section.content), ...planWords, deterministic].join('\n');
}
