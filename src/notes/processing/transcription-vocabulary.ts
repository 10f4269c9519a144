// What a note's audio is likely to say, sent to the speech-to-text server as its prompt's terms
// (providers/transcription/prompt.ts): the patient's name and species first, then the clinic's own
// drug names (settings `drug_names`), then the lexicon's likeliest drugs. The provider keeps as
// many as its budget holds, in this order.

import type { Db } from '../../platform/db/client.ts';
import { LIKELY_DRUGS } from '../plan/lexicon/likely-drugs.ts';
import { planSettingsOf } from '../store/settings.repo.ts';

/** The species as a pt-BR consultation says it. */
const SPECIES_WORDS: Record<string, string> = {
  canine: 'cão',
  feline: 'gato',
  equine: 'equino',
  bovine: 'bovino',
  caprine: 'caprino',
  ovine: 'ovino',
  lagomorph: 'coelho',
  avian: 'ave',
};

export interface VocabularyFacts {
  /** The patient's name as the upload gave it. */
  name: string;
  species: string | null;
}

export function vocabularyTerms(patient: VocabularyFacts, clinicDrugNames: readonly string[]): string[] {
  const species = patient.species ? SPECIES_WORDS[patient.species] : undefined;
  return [patient.name, ...(species ? [species] : []), ...clinicDrugNames, ...LIKELY_DRUGS];
}

/** The terms for a note of `clinicId`, its clinic's drug names read now. */
export async function noteVocabulary(note: VocabularyFacts & { clinicId: string }, db: Db): Promise<string[]> {
  const { drugNames } = await planSettingsOf(note.clinicId, db);
  return vocabularyTerms(note, drugNames);
}
