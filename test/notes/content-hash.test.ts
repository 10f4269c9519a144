import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { coveredStateOf } from '../../src/notes/chain/covered-state.ts';
import { contentSha256 } from '../../src/notes/chain/hash-v1.ts';
import { canonicalV2, linkSha256V2 } from '../../src/notes/chain/hash-v2.ts';
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

// Version 2: the worked example of docs/notes-record.md ("Version 2, field by field"), built from
// rows as a signature and an amendment build it, must give the canonical lines and hashes printed there.
const V2_NOTE = '3f6c1a52-8d1e-4b7a-9c2f-5e4d3c2b1a09';
const V2_ROWS = {
  name: 'Mel',
  externalId: 'PAC-0042',
  species: 'canine',
  vitals: [
    {
      code: 'weight',
      value: 8.5,
      unit: 'kg',
      comparator: null,
      text: 'pesa oito quilos e meio',
      evidence: { start: 5.5, end: 9 },
      flag: null,
    },
    {
      code: 'temperature',
      value: 39.4,
      unit: '°C',
      comparator: null,
      text: 'Temperatura trinta e nove e quatro',
      evidence: { start: 9, end: 13 },
      flag: null,
    },
  ],
  plan: {
    medications: [
      {
        id: 'a7e2c1d0-5b3f-4e8a-9c6d-1f2e3d4c5b6a',
        text: 'omeprazol um miligrama por quilo uma vez ao dia por sete dias',
        evidence: { start: 13, end: 19.5 },
        drug: 'omeprazol',
        dose_value: 1,
        dose_unit: 'mg/kg',
        route: 'oral',
        interval_hours: 24,
        duration_days: 7,
        status: 'prescribed',
        computed_total: { value: 8.5, unit: 'mg' },
      },
    ],
    exams: [],
    vaccines: [],
    follow_ups: [],
  },
};
const V2_SIGNATURE = {
  noteId: V2_NOTE,
  state: coveredStateOf(V2_ROWS, EXAMPLE.sections),
  signedBy: EXAMPLE.signedBy,
  signedAt: EXAMPLE.signedAt,
};

describe('the version 2 link hash', () => {
  const lines = [...docs.matchAll(/```json canonical-v2\n(.+)\n```/g)].map((match) => match[1]!);

  it('gives the canonical lines and hashes of the worked example, for the signature and an amendment', () => {
    expect(lines).toHaveLength(2);
    const signatureHash = linkSha256V2(V2_SIGNATURE);
    expect(canonicalV2(V2_SIGNATURE)).toBe(lines[0]);
    expect(createHash('sha256').update(lines[0]!, 'utf8').digest('hex')).toBe(signatureHash);
    expect(docs).toContain(`signature content_sha256 = ${signatureHash}`);

    const amendment = {
      noteId: V2_NOTE,
      state: coveredStateOf(V2_ROWS, [
        EXAMPLE.sections[0]!,
        { ...EXAMPLE.sections[1]!, content: 'Omeprazol 1 mg/kg a cada 24 h por 10 dias.' },
      ]),
      signedBy: { name: 'Dr. Bruno Lima', license: 'CRMV-RJ 5432' },
      signedAt: '2026-11-29T09:30:00Z',
      amendment: { reason: 'Duração conferida na gravação', previousSha256: signatureHash },
    };
    expect(canonicalV2(amendment)).toBe(lines[1]);
    expect(docs).toContain(`amendment 1 content_sha256 = ${linkSha256V2(amendment)}`);
  });

  it('changes with every covered field, and not with evidence or plan item ids', () => {
    const base = linkSha256V2(V2_SIGNATURE);
    const withRows = (rows: Partial<typeof V2_ROWS>) => ({
      ...V2_SIGNATURE,
      state: coveredStateOf({ ...V2_ROWS, ...rows }, EXAMPLE.sections),
    });
    const [weight, temperature] = V2_ROWS.vitals;
    const [medication] = V2_ROWS.plan.medications;
    const changed = [
      withRows({ name: 'Melzinha' }),
      withRows({ externalId: 'PAC-0043' }),
      withRows({ species: 'feline' }),
      withRows({ vitals: [{ ...weight!, value: 8.6 }, temperature!] }),
      withRows({ vitals: [weight!] }),
      withRows({ plan: { ...V2_ROWS.plan, medications: [{ ...medication!, duration_days: 10 }] } }),
      withRows({ plan: null as never }),
      { ...V2_SIGNATURE, signedBy: { ...EXAMPLE.signedBy, name: 'Dra. Ana Souza Lima' } },
      { ...V2_SIGNATURE, signedAt: '2026-11-28T14:05:10Z' },
      { ...V2_SIGNATURE, amendment: { reason: 'x', previousSha256: base } },
    ];
    for (const link of changed) expect(linkSha256V2(link)).not.toBe(base);
    const sameDecision = withRows({
      vitals: [{ ...weight!, evidence: null as never }, temperature!],
      plan: { ...V2_ROWS.plan, medications: [{ ...medication!, id: 'b7e2c1d0-5b3f-4e8a-9c6d-1f2e3d4c5b6a', evidence: null as never }] },
    });
    expect(linkSha256V2(sameDecision)).toBe(base);
  });
});
