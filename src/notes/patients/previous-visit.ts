import type { Db } from '../../platform/db/client.ts';
import type { PreviousVisit } from '../../providers/drafting/port.ts';
import { diagnosisLabel } from './history.ts';
import { type SignedVisitRow, sectionsLabelled } from './patients.repo.ts';

/**
 * What the drafter is told of the patient's last signed visit (docs/notes-patients.md): its
 * diagnosis section as it stands now (amendments included) and its plan as written, one line per
 * medication or follow-up. Context only: the drafter marks it as previous and the grounding check
 * never reads it.
 */
export async function previousVisitOf(visit: SignedVisitRow, db: Db): Promise<PreviousVisit> {
  const label = diagnosisLabel(visit.template);
  const [diagnosis] = label ? await sectionsLabelled([visit.noteId], [label], db) : [];
  return {
    visitDate: visit.visitDate,
    diagnosis: diagnosis?.content ?? null,
    plan: [...visit.medications, ...visit.followUps].map((item) => item.text),
  };
}
