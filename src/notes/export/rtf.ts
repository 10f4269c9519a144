import {
  draftMark,
  type ExportDocument,
  headerLines,
  linesOf,
  REVIEW_TITLE,
  recordBlocks,
  reviewLines,
  SIMULATED_BANNER,
} from './export-document.ts';
import { planBlocks } from './plan-blocks.ts';
import { VITALS_TITLE, vitalLines } from './vitals-block.ts';

// RTF 1.x by hand: the format is small, and a library would be a dependency for ~80 lines.
// Colours are indices into \colortbl (index 0 is "auto"); fonts are indices into \fonttbl, each
// with a family (\fswiss, \froman) so a reader without Arial or Times still picks the right kind.

type Rgb = readonly [red: number, green: number, blue: number];

const TITLE_BLUE: Rgb = [0, 56, 168];
/** Dark enough to read on white, and far enough from each other and from the title blue. */
const SECTION_COLOURS: readonly Rgb[] = [
  [0, 100, 0],
  [128, 0, 0],
  [102, 0, 153],
  [0, 102, 102],
  [139, 69, 19],
  [64, 64, 64],
];
/** The "Revisar" block: last in the table so the section colours keep their indices. */
const REVIEW_RED: Rgb = [192, 0, 0];
const TITLE_COLOUR = 1;
const FIRST_SECTION_COLOUR = 2;
const REVIEW_COLOUR = FIRST_SECTION_COLOUR + SECTION_COLOURS.length;

const FONT_TABLE = '{\\fonttbl{\\f0\\fswiss\\fcharset0 Arial;}{\\f1\\froman\\fcharset0 Times New Roman;}}';
const TITLE_FONT = '\\f0';
const BODY_FONT = '\\f1';

export function renderRtf(document: ExportDocument): string {
  const colours = [TITLE_BLUE, ...SECTION_COLOURS, REVIEW_RED].map(([r, g, b]) => `\\red${r}\\green${g}\\blue${b};`).join('');
  const header = headerLines(document).map(
    ({ label, value }) => `{\\pard\\sa60${BODY_FONT}\\fs24 {\\b ${escapeRtf(label)}:} ${escapeRtf(value)}\\par}`,
  );
  // In the review red, bold and larger than a section title: the first thing a reader sees.
  const banner = document.simulated
    ? [`{\\pard\\sa200${TITLE_FONT}\\fs32\\b\\cf${REVIEW_COLOUR} ${escapeRtf(SIMULATED_BANNER)}\\par}`]
    : [];
  const review = reviewLines(document);
  const reviewBlock =
    review.length === 0
      ? []
      : [
          `{\\pard\\keepn\\sb280\\sa100${TITLE_FONT}\\fs28\\b\\cf${REVIEW_COLOUR} ${escapeRtf(REVIEW_TITLE)}\\par}`,
          `{\\pard\\sa100${BODY_FONT}\\fs24\\cf${REVIEW_COLOUR} ${review.map(escapeRtf).join('\\par\n')}\\par}`,
        ];
  // Vitals in the body font, a flagged one bold in the review red.
  const vitals = vitalLines(document.vitals).map(({ line, flagged }) =>
    flagged ? `{\\b\\cf${REVIEW_COLOUR} ${escapeRtf(line)}}` : escapeRtf(line),
  );
  const vitalsBlock =
    vitals.length === 0
      ? []
      : [
          `{\\pard\\keepn\\sb280\\sa100${TITLE_FONT}\\fs28\\b\\cf${TITLE_COLOUR} ${escapeRtf(VITALS_TITLE)}\\par}`,
          `{\\pard\\sa100${BODY_FONT}\\fs24 ${vitals.join('\\par\n')}\\par}`,
        ];
  const sections = document.sections.flatMap(({ title, content }, index) => {
    const colour = FIRST_SECTION_COLOUR + (index % SECTION_COLOURS.length);
    const lines = linesOf(content.trim()).map(escapeRtf);
    return [
      // \keepn keeps a title on the page of its first paragraph.
      `{\\pard\\keepn\\sb280\\sa100${TITLE_FONT}\\fs28\\b\\cf${TITLE_COLOUR} ${escapeRtf(title)}\\par}`,
      // Paragraph and character settings hold for every \par inside the group, so one group per section.
      `{\\pard\\sa100${BODY_FONT}\\fs24\\cf${colour} ${lines.join('\\par\n')}\\par}`,
    ];
  });
  const draft = draftMark(document);
  const draftBlock = draft ? [`{\\pard\\sb120\\sa120${TITLE_FONT}\\fs26\\b\\cf${REVIEW_COLOUR} ${escapeRtf(draft)}\\par}`] : [];
  // The receituário after the sections (plan-blocks.ts), then the record: titled blocks of plain lines.
  const plan = planBlocks(document.plan).flatMap(titledBlock);
  const record = recordBlocks(document).flatMap(titledBlock);
  return [
    `{\\rtf1\\ansi\\ansicpg1252\\deff1\\uc1`,
    FONT_TABLE,
    `{\\colortbl;${colours}}`,
    '\\viewkind4',
    ...banner,
    ...header,
    ...draftBlock,
    ...reviewBlock,
    ...vitalsBlock,
    ...sections,
    ...plan,
    ...record,
    '}',
    '',
  ].join('\n');
}

/** A title in the title blue, then its lines in the body font. */
function titledBlock({ title, lines }: { title: string; lines: string[] }): string[] {
  return [
    `{\\pard\\keepn\\sb280\\sa100${TITLE_FONT}\\fs28\\b\\cf${TITLE_COLOUR} ${escapeRtf(title)}\\par}`,
    `{\\pard\\sa100${BODY_FONT}\\fs24 ${lines.map(escapeRtf).join('\\par\n')}\\par}`,
  ];
}

/**
 * Text for an RTF body: `\`, `{`, `}` escaped; every non-ASCII character as `\uN` (a signed
 * 16-bit UTF-16 unit, so characters beyond the BMP become two surrogate escapes) followed by one
 * fallback character for readers that ignore `\u` (`\uc1`). Line breaks are handled by the caller.
 */
export function escapeRtf(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === '{' || char === '}') out += `\\${char}`;
    else if (char === '\t') out += '\\tab ';
    else if (code < 0x20 || code === 0x7f)
      continue; // control characters have no place in RTF text
    else if (code < 0x80) out += char;
    else {
      const fallback = asciiFallback(char);
      for (let i = 0; i < char.length; i++) {
        const unit = char.charCodeAt(i);
        out += `\\u${unit > 0x7fff ? unit - 0x10000 : unit}${fallback}`;
      }
    }
  }
  return out;
}

/**
 * "á" → "a", so an old reader shows "Diagnostico" rather than "Diagn?stico". Only a letter is
 * safe: a digit would run into the `\uN` number, and `\`, `{`, `}` would need escaping.
 */
function asciiFallback(char: string): string {
  const base = char.normalize('NFD').replace(/\p{M}/gu, '');
  return /^[A-Za-z]$/.test(base) ? base : '?';
}
