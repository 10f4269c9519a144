// The settings the plan reads (docs/notes-plan.md): the clinic's time zone, which says the visit
// date of a note that names none, and the clinic's own drug names, added to the plan's lexicon.

import { z } from 'zod';
import { fold } from '../../language/fold.ts';

export const MAX_DRUG_NAMES = 500;

/** The canonical IANA name of `name`, or null when the runtime knows no such zone. */
function canonicalZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const TimezoneSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  // Only region names (`America/Sao_Paulo`, `UTC`): an offset such as `-03:00` ignores daylight saving.
  .refine((name) => /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) && canonicalZone(name) !== null, {
    message: 'must be an IANA time zone name such as America/Sao_Paulo',
  })
  .transform((name) => canonicalZone(name) as string)
  .meta({
    description:
      "IANA name of the clinic's time zone (default `America/Sao_Paulo`): a note whose upload names no `visit_date` " +
      'was made on the day it was created there. Anything else → 422.',
  });

/** Trimmed, each 2-60 characters, at most 500; repeats (same letters, case and accents aside) kept once, the first spelling. */
export const DrugNamesSchema = z
  .array(z.string().trim().min(2).max(60))
  .max(MAX_DRUG_NAMES)
  .transform((names) => {
    const seen = new Set<string>();
    return names.filter((name) => {
      const key = fold(name).replace(/\s+/g, ' ');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  })
  .meta({
    description:
      `The clinic's own drug names (brands, compounded products; administrator), added to the built-in lexicon the plan ` +
      `reads its notes' medications with: at most ${MAX_DRUG_NAMES} names of 2-60 characters, trimmed, repeats ` +
      '(case and accents aside) kept once. A PATCH replaces the whole list; notes already completed keep their plan.',
  });
