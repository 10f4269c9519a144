// The clinical drafter's medications checked against the plan read from the transcript, as its
// vitals are (drafted-vitals.ts): a drafted sentence that names a drug the plan does not hold, or
// the same drug with another dose or interval, is flagged `plan_mismatch` for the vet. The sentence
// stays in the note; the vet decides which is right (and corrects the plan or the text). Only what
// the sentence states is compared: a sentence that names the drug without a dose is not a mismatch
// of dose.

import { splitSentences } from '../../language/sentences.ts';
import type { ReviewFlag } from '../../providers/drafting/port.ts';
import { type PlanContext, planOfText } from '../plan/extract-plan.ts';
import type { Plan, PlanMedication } from '../store/plan.schemas.ts';
import type { WrittenNote } from './write-sections.ts';

const sameNumber = (a: number, b: number) => Math.abs(a - b) < 1e-6;
const decimal = (value: number) => String(value).replace('.', ',');

/** What of `drafted` disagrees with every medication of the same drug in the plan: the token to show, or null. */
function mismatchOf(drafted: PlanMedication, plan: Plan): string | null {
  const ofDrug = plan.medications.filter((item) => item.drug === drafted.drug);
  if (ofDrug.length === 0) return drafted.drug;
  const dose = drafted.dose_value !== null;
  const sameDose = (item: PlanMedication) =>
    item.dose_value !== null && sameNumber(item.dose_value, drafted.dose_value!) && item.dose_unit === drafted.dose_unit;
  if (dose && !ofDrug.some(sameDose)) return `${drafted.drug} ${decimal(drafted.dose_value!)} ${drafted.dose_unit ?? ''}`.trim();
  const interval = drafted.interval_hours;
  if (interval !== null && !ofDrug.some((item) => item.interval_hours !== null && sameNumber(item.interval_hours, interval))) {
    return `${drafted.drug} a cada ${decimal(interval)} h`;
  }
  return null;
}

export function groundDraftedPlan(written: WrittenNote, plan: Plan, context: PlanContext): WrittenNote {
  if (written.style !== 'clinical') return written;
  const flags: ReviewFlag[] = [];
  for (const section of written.sections) {
    for (const sentence of splitSentences(section.content)) {
      for (const drafted of planOfText(sentence.text, context).medications) {
        const token = mismatchOf(drafted, plan);
        if (token !== null) flags.push({ section: section.label, sentence: sentence.text, reason: 'plan_mismatch', token });
      }
    }
  }
  return flags.length === 0 ? written : { ...written, reviewFlags: [...written.reviewFlags, ...flags] };
}
