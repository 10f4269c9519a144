// The drug lexicon as the extraction reads it: every name and variant of ./drugs.ts, plus a
// clinic's own names (settings `drug_names`) for that clinic's notes, matched as whole words,
// the longest name first ("amoxicilina com clavulanato" before "amoxicilina").

import type { Route } from '../../store/plan.schemas.ts';
import { PhraseTable, phraseWords } from '../tokens.ts';
import { DRUG_ENTRIES, type DrugClass } from './drugs.ts';

export interface Drug {
  /** The name reported as the item's `drug` (lower case, no accents). */
  name: string;
  /** The generic it contains (itself for a generic; the clinic's name for a clinic's own). */
  generic: string;
  /** The route its only form implies, or null. */
  route: Route | null;
  /** `clinic`: one of the clinic's names; `unlisted`: a name no list holds, read by its ending or its dose. */
  drugClass: DrugClass | 'clinic' | 'unlisted';
}

const ENTRY = /^([^|>@]+?)\s*((?:\|\s*[^|>@]+?\s*)*)(?:>\s*([^@]+?)\s*)?(?:@(\w+))?$/;

/** `name | variant > generic @route` → the drug and every way it is said. */
export function parseEntry(line: string, drugClass: DrugClass): { drug: Drug; phrases: string[] } {
  const match = ENTRY.exec(line.trim());
  if (!match) throw new Error(`bad lexicon entry: ${line}`);
  const name = phraseWords(match[1]!).join(' ');
  const variants = (match[2] ?? '')
    .split('|')
    .map((variant) => phraseWords(variant).join(' '))
    .filter(Boolean);
  const generic = match[3] ? phraseWords(match[3]).join(' ') : name;
  return { drug: { name, generic, route: (match[4] as Route | undefined) ?? null, drugClass }, phrases: [name, ...variants] };
}

let builtIn: { drug: Drug; phrases: string[] }[] | null = null;

/** Every built-in entry, parsed once. */
export function builtInDrugs(): { drug: Drug; phrases: string[] }[] {
  builtIn ??= (Object.entries(DRUG_ENTRIES) as [DrugClass, string[]][]).flatMap(([drugClass, lines]) =>
    lines.map((line) => parseEntry(line, drugClass)),
  );
  return builtIn;
}

let builtInTable: PhraseTable<Drug> | null = null;

/**
 * The lexicon for one call: the built-in names, the clinic's names when it has any, and the words
 * of this transcript that may be a misheard drug (misheard-drugs.ts), each read as the drug it
 * resembles but reported under the name as said ("carpofeno").
 */
export function drugTable(
  clinicDrugNames: readonly string[],
  misheard: readonly { said: string; suggestion: Drug }[] = [],
): PhraseTable<Drug> {
  if (!builtInTable) {
    builtInTable = new PhraseTable<Drug>([]);
    for (const { drug, phrases } of builtInDrugs()) for (const phrase of phrases) builtInTable.add(phrase, drug);
  }
  if (clinicDrugNames.length === 0 && misheard.length === 0) return builtInTable;
  const table = new PhraseTable<Drug>([]);
  for (const { drug, phrases } of builtInDrugs()) for (const phrase of phrases) table.add(phrase, drug);
  for (const raw of clinicDrugNames) {
    const name = phraseWords(raw).join(' ');
    // A built-in name keeps its generic and route; the clinic's adds only what the lexicon lacks.
    if (name !== '') table.add(name, { name, generic: name, route: null, drugClass: 'clinic' });
  }
  for (const { said, suggestion } of misheard) table.add(said, { ...suggestion, name: said });
  return table;
}
