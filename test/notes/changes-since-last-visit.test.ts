import { describe, expect, it } from 'vitest';
import { compareWithLastVisit, type SignedVisit } from '../../src/notes/patients/changes-since-last-visit.ts';
import { EMPTY_PLAN, type PlanMedication } from '../../src/notes/store/plan.schemas.ts';

// The comparison of a new plan's medications with the patient's last signed note, table by table.
const LAST = '11111111-1111-4111-8111-111111111111';
const EARLIER = '22222222-2222-4222-8222-222222222222';

function med(
  drug: string,
  dose: number | null,
  unit: PlanMedication['dose_unit'],
  interval: number | null,
  status: PlanMedication['status'] = 'prescribed',
): PlanMedication {
  return {
    id: crypto.randomUUID(),
    text: `${drug} ${dose ?? ''}`.trim(),
    evidence: null,
    drug,
    dose_value: dose,
    dose_unit: unit,
    route: 'oral',
    interval_hours: interval,
    duration_days: null,
    status,
    computed_total: null,
  };
}

const visits = (last: PlanMedication[], earlier: PlanMedication[] = []): SignedVisit[] => [
  { noteId: LAST, medications: last },
  { noteId: EARLIER, medications: earlier },
];

describe('compareWithLastVisit', () => {
  it.each([
    ['the same dose and interval', med('meloxicam', 0.1, 'mg/kg', 24), [med('meloxicam', 0.1, 'mg/kg', 24)], [], 'same', LAST],
    ['another dose', med('meloxicam', 0.2, 'mg/kg', 24), [med('meloxicam', 0.1, 'mg/kg', 24)], [], 'dose_changed', LAST],
    ['another unit', med('meloxicam', 2, 'mg', 24), [med('meloxicam', 2, 'mg/kg', 24)], [], 'dose_changed', LAST],
    ['another interval', med('amoxicilina', 10, 'mg/kg', 8), [med('amoxicilina', 10, 'mg/kg', 12)], [], 'interval_changed', LAST],
    [
      'dose and interval both changed: the dose is named',
      med('prednisolona', 1, 'mg/kg', 12),
      [med('prednisolona', 0.5, 'mg/kg', 24)],
      [],
      'dose_changed',
      LAST,
    ],
    ['no dose said now: nothing to tell apart', med('meloxicam', null, null, null), [med('meloxicam', 0.1, 'mg/kg', 24)], [], 'same', LAST],
    ['no dose said then', med('meloxicam', 0.1, 'mg/kg', 24), [med('meloxicam', null, null, null)], [], 'same', LAST],
    ['a drug never given', med('cefalexina', 30, 'mg/kg', 12), [med('meloxicam', 0.1, 'mg/kg', 24)], [], 'new', null],
    [
      'a drug of an earlier visit, not of the last',
      med('cefalexina', 30, 'mg/kg', 12),
      [],
      [med('cefalexina', 25, 'mg/kg', 12)],
      'resumed',
      EARLIER,
    ],
  ] as const)('%s', (_, now, last, earlier, change, previousNote) => {
    const { plan, flags } = compareWithLastVisit({ ...EMPTY_PLAN, medications: [now] }, visits([...last], [...earlier]));
    expect(plan.medications[0]!.change_since_last_visit).toBe(change);
    expect(plan.medications[0]!.previous?.note_id ?? null).toBe(previousNote);
    const flagged = change === 'dose_changed' || change === 'interval_changed';
    expect(flags.map((flag) => flag.reason)).toEqual(flagged ? ['changed_since_last_visit'] : []);
  });

  it('tells what the dose was in the flag, and the previous dose on the item', () => {
    const { plan, flags } = compareWithLastVisit(
      { ...EMPTY_PLAN, medications: [med('meloxicam', 0.2, 'mg/kg', 24)] },
      visits([med('meloxicam', 0.1, 'mg/kg', 24)]),
    );
    expect(plan.medications[0]!.previous).toEqual({ note_id: LAST, dose_value: 0.1, dose_unit: 'mg/kg', interval_hours: 24 });
    expect(flags).toEqual([
      { section: null, sentence: 'meloxicam 0.2', reason: 'changed_since_last_visit', token: 'meloxicam (antes 0,1 mg/kg)' },
    ]);
  });

  it.each([
    ['a drug of the last visit not said now', [med('meloxicam', 0.1, 'mg/kg', 24)], [], ['meloxicam']],
    ['one said now is mentioned', [med('meloxicam', 0.1, 'mg/kg', 24)], [med('meloxicam', 0.1, 'mg/kg', 24)], []],
    ['one stopped at the last visit is not listed', [med('tramadol', 2, 'mg/kg', 8, 'suspended')], [], []],
    ['the same drug twice then, once listed', [med('omeprazol', 1, 'mg/kg', 24), med('omeprazol', 1, 'mg/kg', 12)], [], ['omeprazol']],
  ] as const)('not mentioned: %s', (_, last, now, listed) => {
    const { plan } = compareWithLastVisit({ ...EMPTY_PLAN, medications: [...now] }, visits([...last]));
    expect(plan.not_mentioned?.map((item) => item.drug)).toEqual(listed);
    for (const item of plan.not_mentioned ?? []) expect(item.note_id).toBe(LAST);
  });

  it('leaves a first visit as it is', () => {
    const first = { ...EMPTY_PLAN, medications: [med('meloxicam', 0.1, 'mg/kg', 24)] };
    const { plan, flags } = compareWithLastVisit(first, []);
    expect(plan).toEqual(first);
    expect(plan.medications[0]).not.toHaveProperty('change_since_last_visit');
    expect(flags).toEqual([]);
  });
});
