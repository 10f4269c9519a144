import { type ExportDocument, headerLines, linesOf } from './export-document.ts';

/** Plain structured text: the header, then each section as an underlined title and its text. */
export function renderTxt(document: ExportDocument): string {
  const header = headerLines(document).map(({ label, value }) => `${label}: ${value}`);
  const sections = document.sections.map(({ title, content }) => {
    // Underline by code points, so "Diagnóstico" gets 11 dashes whatever its byte length.
    const underline = '-'.repeat(Math.max([...title].length, 3));
    const body = content.trim();
    return [title, underline, ...(body ? linesOf(body) : [])].join('\n');
  });
  return `${[header.join('\n'), ...sections].join('\n\n')}\n`;
}
