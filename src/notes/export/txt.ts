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

// Underline by code points, so "Diagnóstico" gets 11 dashes whatever its byte length.
const underlined = (title: string) => [title, '-'.repeat(Math.max([...title].length, 3))];

/**
 * Plain structured text: the "SIMULADO" line when the transcript was made up, the header (and the
 * draft mark while unsigned), the "Revisar" block when something needs review, the "Sinais vitais"
 * block when vitals were said, each section as an underlined title and its text, the plan as a
 * receituário (Prescrição, Exames solicitados, Vacinas, Retorno: the lists that hold something), then the
 * amendments and the signature of a signed note.
 */
export function renderTxt(document: ExportDocument): string {
  const header = headerLines(document).map(({ label, value }) => `${label}: ${value}`);
  const review = reviewLines(document);
  const reviewBlock = review.length > 0 ? [[...underlined(REVIEW_TITLE), ...review].join('\n')] : [];
  const vitals = vitalLines(document.vitals).map(({ line }) => line);
  const vitalsBlock = vitals.length > 0 ? [[...underlined(VITALS_TITLE), ...vitals].join('\n')] : [];
  const sections = document.sections.map(({ title, content }) => {
    const body = content.trim();
    return [...underlined(title), ...(body ? linesOf(body) : [])].join('\n');
  });
  const banner = document.simulated ? [SIMULATED_BANNER] : [];
  const draft = draftMark(document);
  const titledBlock = ({ title, lines }: { title: string; lines: string[] }) => [...underlined(title), ...lines].join('\n');
  const plan = planBlocks(document.plan).map(titledBlock);
  const record = recordBlocks(document).map(titledBlock);
  return `${[...banner, header.join('\n'), ...(draft ? [draft] : []), ...reviewBlock, ...vitalsBlock, ...sections, ...plan, ...record].join('\n\n')}\n`;
}
