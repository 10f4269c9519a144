import type { TemplateSection } from '../../providers/drafting/port.ts';

/** A note template as the service knows it: a built-in or one of a clinic's own. */
export interface Template {
  id: string;
  slug: string;
  name: string;
  builtin: boolean;
  /** In display order; every base label in exactly one of them (template-coverage.ts). */
  sections: TemplateSection[];
}
