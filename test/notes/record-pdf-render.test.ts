import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ExportDocument } from '../../src/notes/export/export-document.ts';
import { recordPdf } from '../../src/notes/export/pdf/record-pdf-stream.ts';
import { winAnsi } from '../../src/notes/export/pdf/win-ansi.ts';
import { recordSha256 } from '../../src/notes/export/record-hash.ts';
import { tutorOf } from '../../src/notes/export/tutor.ts';

// The record's pieces without the app: the characters the standard PDF fonts can draw, the
// receituário's lines, the tutor's metadata keys, the footer's hash, and a PDF read back by pdftotext.

async function pdfOf(documents: ExportDocument[]): Promise<{ text: string; pages: number; content: string }> {
  const heading = {
    clinic: null,
    patient: { name: 'Tóbi', externalId: 'PAC-1', species: null, gender: 'male' as const, tutor: null },
    issuedAt: '2026-12-07T10:00:00Z',
    notes: documents.length,
  };
  const { body, pages } = await recordPdf(
    heading,
    async function* () {
      yield* documents;
    },
    'f'.repeat(64),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const pdf = Buffer.concat(chunks);
  // The pages' drawing operators, inflated, for what text extraction cannot see (colours).
  const content = [...pdf.toString('latin1').matchAll(/stream\r?\n([\s\S]*?)endstream/g)]
    .map((match) => {
      try {
        return inflateSync(Buffer.from(match[1] ?? '', 'latin1')).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('\n');
  return { text: execFileSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8'), pages, content };
}

const note = (content: string): ExportDocument => ({
  patient: { name: 'Tóbi', gender: 'male', date: '2026-12-01', externalId: 'PAC-1' },
  createdAt: '2026-12-01T10:00:00Z',
  sections: [{ title: 'Anamnese', content }],
  record: { signature: null, currentSha256: null, amendments: [] },
});

describe('winAnsi', () => {
  it('keeps Portuguese and WinAnsi punctuation, spells the vitals comparators, folds or replaces the rest', () => {
    expect(winAnsi('ação, pé, avô, à, ç, º, ª, °C — “aspas” … €')).toBe('ação, pé, avô, à, ç, º, ª, °C — “aspas” … €');
    expect(winAnsi('TPC ≤ 2 s, FC ≥ 180')).toBe('TPC <= 2 s, FC >= 180');
    // Ł has no decomposition (replaced), ó is Latin-1 (kept), ź and ő fold to their base letter.
    expect(winAnsi('Łódź ő 😀 北')).toBe('?ódz o ? ?');
    expect(winAnsi('a\tb\u0007c')).toBe('a    bc');
  });
});

describe('the PDF layout', () => {
  it('is read back with the accents right, a character outside WinAnsi replaced, and a page count that matches the pages', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `Linha ${i + 1}: coração, pressão e 2º exame; TPC ≤ 2 s.`).join('\n');
    const { text, pages, content } = await pdfOf([note(long), note('Olá 😀 fim.')]);
    expect(pages).toBeGreaterThan(3);
    expect(text.split('\f').filter((page) => page.trim() !== '')).toHaveLength(pages);
    expect(text).toContain('Linha 400: coração, pressão e 2º exame; TPC <= 2 s.');
    expect(text).toContain('Olá ? fim.');
    expect(text).toContain(`página ${pages} de ${pages}`);
    for (let page = 1; page <= pages; page++) expect(text).toContain(`página ${page} de ${pages}`);
    // The footer's grey is set once per page and never leaks into the paragraph a page break cut
    // (pdfkit re-applies its current colour after the break: the footer must give it back).
    const grey = content.split('0.3333333333333333 0.3333333333333333 0.3333333333333333 scn').length - 1;
    expect(grey).toBe(pages);
  });
});

describe('the tutor and the record hash', () => {
  it('finds the tutor under the known metadata keys, in their order of preference', () => {
    expect(tutorOf([])).toBeNull();
    expect(tutorOf([{ key: 'raça', value: 'SRD' }])).toBeNull();
    expect(tutorOf([{ key: 'Tutor', value: ' Ana ' }])).toBe('Ana');
    expect(
      tutorOf([
        { key: 'tutor', value: 'Ana' },
        { key: 'owner_name', value: 'Joana' },
      ]),
    ).toBe('Joana');
  });

  it('hashes "<note id> <latest hash>" lines, "rascunho" for a draft, in order', () => {
    // printf 'n1 rascunho\nn2 abc\n' | sha256sum
    expect(
      recordSha256([
        { noteId: 'n1', sha256: null },
        { noteId: 'n2', sha256: 'abc' },
      ]),
    ).toBe('8896e8bd3201086b46c225e3b07d348af79788f8d0dfede9d9baa42767eca4d1');
    expect(
      recordSha256([
        { noteId: 'n2', sha256: 'abc' },
        { noteId: 'n1', sha256: null },
      ]),
    ).not.toBe(
      recordSha256([
        { noteId: 'n1', sha256: null },
        { noteId: 'n2', sha256: 'abc' },
      ]),
    );
  });
});
