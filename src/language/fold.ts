// Folding pt-BR text for matching: every module that matches words (sentences, headings, vitals,
// grounding) folds the same way, and keeps each index so a match points back into the original.

/**
 * Lower-cases and removes accents without changing the length, so a match in the folded text has
 * the same indices in the original ("Diagnóstico" → "diagnostico").
 */
export function fold(text: string): string {
  let folded = '';
  for (const char of text) {
    const bare = char.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    // Characters outside the BMP or that fold to two characters are kept as they are.
    folded += bare.length === char.length ? bare : char;
  }
  return folded;
}
