import { createRequire } from 'node:module';
import type * as libphonenumber from 'libphonenumber-js/max';

// Loaded on the first phone normalised, not at start-up: 110 modules and their metadata (~2 MB of
// heap) that a process serving only the Notes API need not hold (docs/benchmarks.md, idle memory).
// The `max` metadata: the default one checks only a number's length, so a mobile typed without its
// area code (98765-4321) passed as +55 98 7654-321, a number that cannot exist.
let parser: typeof libphonenumber.parsePhoneNumberFromString | undefined;
function parsePhoneNumberFromString(...args: Parameters<typeof libphonenumber.parsePhoneNumberFromString>) {
  parser ??= (createRequire(import.meta.url)('libphonenumber-js/max') as typeof libphonenumber).parsePhoneNumberFromString;
  return parser(...args);
}

/**
 * A phone in its one canonical form: E.164 after parsing with default region BR. Brazilian mobiles
 * gained a ninth digit (a leading 9) in 2012-2016, and ERPs still hold both forms: a 10-digit
 * national number whose subscriber part starts with 6-9 is an old-style mobile, so the 9 is added.
 * Landlines (subscriber part 2-5) keep 8 digits. Returns undefined for anything that is not a valid number.
 */
export function normalizePhone(input: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), 'BR');
  if (!parsed) return undefined;
  const national = String(parsed.nationalNumber);
  if (parsed.countryCallingCode === '55' && /^[1-9]{2}[6-9]\d{7}$/.test(national)) {
    const canonical = parsePhoneNumberFromString(`+55${national.slice(0, 2)}9${national.slice(2)}`);
    return canonical?.isValid() ? canonical.number : undefined;
  }
  // Already canonical: no second parse (half the cost of a typical number).
  return parsed.isValid() ? parsed.number : undefined;
}
