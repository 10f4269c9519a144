import type { ReviewFlag } from '../../providers/drafting/port.ts';
import type { ComparedPlan, MedicationChange, NotMentioned, Plan, PlanMedication } from '../store/plan.schemas.ts';

// What changed since the patient's last visit, read when a note completes: each medication of the
// new plan against the last signed note's (docs/notes-patients.md). A dose or interval that differs
// is flagged for the vet to confirm it was meant: a dose misheard or misread in one visit would
// otherwise pass as the new prescription. Medications of the last visit that this one did not
// mention are listed, never assumed stopped (the vet may simply not have said them).

/** An earlier signed note of the patient: its id and its plan's medications. */
export interface SignedVisit {
  noteId: string;
  medications: readonly PlanMedication[];
}

const sameNumber = (a: number, b: number) => Math.abs(a - b) < 1e-6;
const decimal = (value: number) => String(value).replace('.', ',');

/** Both said, and different (a dose or interval said in only one of the visits is not a change we can tell). */
function doseDiffers(now: PlanMedication, before: PlanMedication): boolean {
  if (now.dose_value === null || before.dose_value === null) return false;
  return !sameNumber(now.dose_value, before.dose_value) || now.dose_unit !== before.dose_unit;
}

function intervalDiffers(now: PlanMedication, before: PlanMedication): boolean {
  if (now.interval_hours === null || before.interval_hours === null) return false;
  return !sameNumber(now.interval_hours, before.interval_hours);
}

const previousOf = (noteId: string, medication: PlanMedication) => ({
  note_id: noteId,
  dose_value: medication.dose_value,
  dose_unit: medication.dose_unit,
  interval_hours: medication.interval_hours,
});

/** How `medication` compares with the last visit (`last`) and the ones before it (`earlier`, newest first). */
function changeOf(
  medication: PlanMedication,
  last: SignedVisit,
  earlier: readonly SignedVisit[],
): { change: MedicationChange; previous: ReturnType<typeof previousOf> | null } {
  const before = last.medications.find((item) => item.drug === medication.drug);
  if (before) {
    const previous = previousOf(last.noteId, before);
    if (doseDiffers(medication, before)) return { change: 'dose_changed', previous };
    if (intervalDiffers(medication, before)) return { change: 'interval_changed', previous };
    return { change: 'same', previous };
  }
  for (const visit of earlier) {
    const found = visit.medications.find((item) => item.drug === medication.drug);
    if (found) return { change: 'resumed', previous: previousOf(visit.noteId, found) };
  }
  return { change: 'new', previous: null };
}

/**
 * `plan` with each medication's `change_since_last_visit` and `previous`, `not_mentioned` filled,
 * and the review flags for changed doses and intervals. `visits` are the patient's earlier signed
 * notes, newest first; none → the plan as it is (a first visit), no flags.
 */
export function compareWithLastVisit(plan: Plan, visits: readonly SignedVisit[]): { plan: ComparedPlan; flags: ReviewFlag[] } {
  const [last, ...earlier] = visits;
  if (!last) return { plan, flags: [] };
  const flags: ReviewFlag[] = [];
  const medications = plan.medications.map((medication) => {
    const { change, previous } = changeOf(medication, last, earlier);
    if (change === 'dose_changed' || change === 'interval_changed') {
      const was =
        change === 'dose_changed'
          ? `${decimal(previous!.dose_value!)} ${previous!.dose_unit ?? ''}`.trim()
          : `a cada ${decimal(previous!.interval_hours!)} h`;
      flags.push({
        section: null,
        sentence: medication.text,
        reason: 'changed_since_last_visit',
        token: `${medication.drug} (antes ${was})`,
      });
    }
    return { ...medication, change_since_last_visit: change, previous };
  });
  const mentioned = new Set(plan.medications.map((medication) => medication.drug));
  const notMentioned: NotMentioned[] = [];
  for (const medication of last.medications) {
    // A drug stopped at the last visit was not continued: nothing to remind.
    if (medication.status === 'suspended' || mentioned.has(medication.drug)) continue;
    if (notMentioned.some((item) => item.drug === medication.drug)) continue;
    notMentioned.push({ ...previousOf(last.noteId, medication), drug: medication.drug, text: medication.text });
  }
  return { plan: { ...plan, medications, not_mentioned: notMentioned }, flags };
}
