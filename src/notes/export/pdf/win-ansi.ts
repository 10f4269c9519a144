// The PDF uses the standard Helvetica fonts (no font file to ship or embed), which draw the WinAnsi
// character set: every Portuguese letter (á ã â à é ê í ó õ ô ú ç), º ª ° and the dashes and quotes
// are in it. A character outside it would print as a wrong glyph, so it is replaced first: the
// comparison signs the vitals use by their ASCII spelling, an accented letter of another language
// by its base letter, anything else by "?".

// Code points above U+00FF that WinAnsi (Windows-1252) has, in its 0x80-0x9F range.
const WIN_ANSI_EXTRAS = new Set([
  0x152, 0x153, 0x160, 0x161, 0x178, 0x17d, 0x17e, 0x192, 0x2c6, 0x2dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d, 0x201e,
  0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);
const SPELLED: Record<string, string> = { '≤': '<=', '≥': '>=', '\u2212': '-', '\u00a0': ' ', '\t': '    ' };

const drawable = (code: number) => (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(code);

/** `text` with every character the standard fonts cannot draw replaced. */
export function winAnsi(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (drawable(code)) out += char;
    else if (SPELLED[char] !== undefined) out += SPELLED[char];
    else if (code < 0x20) continue;
    else {
      const base = char.normalize('NFD').replace(/\p{M}/gu, '');
      out += base.length > 0 && [...base].every((c) => drawable(c.codePointAt(0) ?? 0)) ? base : '?';
    }
  }
  return out;
}
