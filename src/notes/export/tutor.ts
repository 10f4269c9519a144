// The tutor (the animal's owner) is not a column of the note: uploads carry it as a metadata item,
// `owner_name` in the documented example (docs/notes-processing.md), and clinic systems send other
// spellings too. The first of these keys that a note's metadata has names the tutor.

const TUTOR_KEYS = ['owner_name', 'tutor_name', 'tutor', 'tutora', 'owner', 'responsavel', 'responsável'];

/** The tutor's name from a note's metadata items, or null when none of the known keys is there. */
export function tutorOf(metadata: readonly { key: string; value: string }[]): string | null {
  for (const key of TUTOR_KEYS) {
    const item = metadata.find((entry) => entry.key.trim().toLowerCase() === key && entry.value.trim() !== '');
    if (item) return item.value.trim();
  }
  return null;
}
