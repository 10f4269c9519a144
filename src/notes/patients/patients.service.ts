import { bindService } from '../../platform/bind-service.ts';
import type { Db } from '../../platform/db/client.ts';
import { AppError } from '../../platform/errors.ts';
import { pageOf } from '../../platform/http/pagination.ts';
import type { NotesCaller } from '../callers.ts';
import { clinicTimezone } from '../store/settings.repo.ts';
import type { Species } from '../store/vitals.schemas.ts';
import { assembleHistory, diagnosisLabel } from './history.ts';
import { countPatients, patientNotes, patientPage, sectionsLabelled } from './patients.repo.ts';
import type { PatientsQuery } from './patients.schemas.ts';

/**
 * A patient's history: the caller's clinic's notes with this external id, assembled (history.ts).
 * Tenancy is the query's: another clinic's notes with the same id are not the caller's patient, so
 * an id only another clinic uses is as unknown as one nobody does (404, nothing told).
 */
async function history({ db }: { db: Db }, caller: NotesCaller, externalId: string) {
  const rows = await patientNotes(caller.clinicId, externalId, db);
  if (rows.length === 0)
    throw new AppError('PATIENT_NOT_FOUND', 'No note of your clinic has this external_id', { external_id: externalId });
  const completed = rows.filter((row) => row.transcriptionStatus === 'completed');
  const labels = new Map(completed.map((row) => [row.id, diagnosisLabel(row.template)]));
  const [sections, today] = await Promise.all([
    sectionsLabelled(
      completed.map((row) => row.id),
      [...new Set([...labels.values()].filter((label): label is string => label !== undefined))],
      db,
    ),
    clinicTimezone(caller.clinicId, db).then(dayIn),
  ]);
  const diagnoses = new Map<string, string>();
  for (const section of sections) {
    if (labels.get(section.noteId) === section.label && !diagnoses.has(section.noteId)) diagnoses.set(section.noteId, section.content);
  }
  return assembleHistory(externalId, rows, diagnoses, today);
}

/** Today's date (`YYYY-MM-DD`) in the clinic's time zone: when a follow-up is due is the clinic's day. */
const dayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());

/** The clinic's patients, the latest visit first, a page of them and how many there are. */
async function list({ db }: { db: Db }, caller: NotesCaller, query: PatientsQuery) {
  const [rows, total] = await Promise.all([
    patientPage(caller.clinicId, query.q, pageOf(query), db),
    countPatients(caller.clinicId, query.q, db),
  ]);
  const items = rows.map((row) => ({
    external_id: row.externalId,
    name: row.name,
    species: row.species as Species | null,
    notes: row.notes,
    last_visit: row.lastVisit,
  }));
  return { items, total };
}

export function patientsService(deps: { db: Db }) {
  return bindService(deps, { history, list });
}

export type PatientsService = ReturnType<typeof patientsService>;
