import { AppError } from '../../platform/errors.ts';
import { SECTION_LABELS } from '../../providers/sectioning/port.ts';

/**
 * Every base label in exactly one section: then every sentence the sectioner labels has one place
 * in the note, and none can be lost or written twice. A label in no section or in two → 422, with
 * `details.field` naming the label.
 */
export function checkCoverage(sections: readonly { label: string; includes: readonly string[] }[]): void {
  for (const base of SECTION_LABELS) {
    const holders = sections.filter((section) => section.includes.includes(base)).map((section) => section.label);
    const times = sections.reduce((count, section) => count + section.includes.filter((label) => label === base).length, 0);
    if (times === 0) {
      throw new AppError('VALIDATION_ERROR', `The base label "${base}" is in no section: every base label must be in exactly one`, {
        field: base,
        reason: 'in no section',
      });
    }
    if (times > 1) {
      throw new AppError('VALIDATION_ERROR', `The base label "${base}" is in more than one section (${holders.join(', ')})`, {
        field: base,
        reason: 'in more than one section',
        sections: holders,
      });
    }
  }
}
