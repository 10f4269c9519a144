import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSha256 } from '../../src/notes/record/content-hash.ts';
import { ROOT } from '../helpers/processes.ts';

// The canonical form as docs/notes-record.md documents it, for a third party to recompute: the
// worked example there must hold, byte for byte, and the service's function must agree with it.

const docs = readFileSync(path.join(ROOT, 'docs/notes-record.md'), 'utf8');
const EXAMPLE = {
  noteId: '3f6c1a52-8d1e-4b7a-9c2f-5e4d3c2b1a09',
  sections: [
    { label: 'anamnesis', title: 'Anamnese', content: 'Tutora relata vômitos desde anteontem.', order: '1' },
    { label: 'treatment', title: 'Tratamento', content: 'Omeprazol 1 mg/kg a cada 24 h por 7 dias.', order: '2' },
  ],
  signedBy: { name: 'Dra. Ana Souza', license: 'CRMV-SP 12345' },
  signedAt: '2026-11-28T14:05:09Z',
};

describe('the content hash', () => {
  it('is the SHA-256 of the canonical JSON written in the docs, and the docs say so', () => {
    const canonical = /```json canonical\n(.+)\n```/.exec(docs)?.[1];
    expect(canonical).toBeDefined();
    const hash = createHash('sha256').update(canonical!, 'utf8').digest('hex');
    expect(docs).toContain(`content_sha256 = ${hash}`);
    expect(contentSha256(EXAMPLE)).toBe(hash);
  });

  it('orders sections as the API shows them (numeric order) and changes with any clinical text', () => {
    const base = contentSha256(EXAMPLE);
    expect(contentSha256({ ...EXAMPLE, sections: [...EXAMPLE.sections].reverse() })).toBe(base);
    const tenth = {
      ...EXAMPLE,
      sections: [
        { ...EXAMPLE.sections[0]!, order: '10' },
        { ...EXAMPLE.sections[1]!, order: '2' },
      ],
    };
    const tenthReversed = { ...tenth, sections: [...tenth.sections].reverse() };
    expect(contentSha256(tenth)).toBe(contentSha256(tenthReversed));
    const changed = [
      { ...EXAMPLE, sections: [EXAMPLE.sections[0]!, { ...EXAMPLE.sections[1]!, content: 'Omeprazol 1 mg/kg a cada 24 h por 10 dias.' }] },
      { ...EXAMPLE, sections: [EXAMPLE.sections[0]!, { ...EXAMPLE.sections[1]!, title: 'Conduta' }] },
      { ...EXAMPLE, signedBy: { ...EXAMPLE.signedBy, license: 'CRMV-SP 12346' } },
      { ...EXAMPLE, signedAt: '2026-11-28T14:05:10Z' },
      { ...EXAMPLE, noteId: '3f6c1a52-8d1e-4b7a-9c2f-5e4d3c2b1a0a' },
    ];
    for (const content of changed) expect(contentSha256(content)).not.toBe(base);
  });
});
