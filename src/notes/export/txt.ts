import { type ExportDocument, headerLines, linesOf, REVIEW_TITLE, reviewLines, SIMULATED_BANNER } from './export-document.ts';

// Underline by code points, so "Diagnóstico" gets 11 dashes whatever its byte length.
const underlined = (title: string) => [title, '-'.repeat(Math.max([...title].length, 3))];

/**
 * Plain structured text: the "SIMULADO" line when the transcript was made up, the header, the
 * "Revisar" block when something needs review, then each section as an underlined title and its text.
 */
export function renderTxt(document: ExportDocument): string {
  const header = headerLines(document).map(({ label, value }) => `${label}: ${value}`);
  const review = reviewLines(document);
  const reviewBlock = review.length > 0 ? [[...underlined(REVIEW_TITLE), ...review].join('\n')] : [];
  const sections = document.sections.map(({ title, content }) => {
    const body = content.trim();
    return [...underlined(title), ...(body ? linesOf(body) : [])].join('\n');
  });
  const banner = document.simulated ? [SIMULATED_BANNER] : [];
  return `${[...banner, header.join('\n'), ...reviewBlock, ...sections].join('\n\n')}\n`;
}
