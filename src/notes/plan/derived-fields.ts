// The fields of a plan item that follow from others and the note, never from the words alone:
// a per-kg dose's total from the note's weight, a follow-up's due date from the visit date.
// The extraction states them as it reads; a plan the client sends (PUT /plan) gets them here.

const PER_KG = /^(.+)\/kg$/;

/** `dose × weight` in the dose's unit without `/kg` (1 mg/kg × 32.4 kg = 32.4 mg), to 0.01; null without either. */
export function computedTotal(
  dose: { dose_value: number | null; dose_unit: string | null },
  weightKg: number | null,
): { value: number; unit: string } | null {
  const unit = dose.dose_unit?.match(PER_KG)?.[1];
  if (!unit || dose.dose_value === null || weightKg === null) return null;
  return { value: Math.round(dose.dose_value * weightKg * 100) / 100, unit };
}

/** `YYYY-MM-DD` `days` after `visitDate`; null without a number of days. */
export function dueDateOf(visitDate: string, days: number | null): string | null {
  if (days === null) return null;
  const day = new Date(`${visitDate}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}
