import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportDocument } from '../../src/notes/export/export-document.ts';
import { renderRtf } from '../../src/notes/export/rtf.ts';
import { renderTxt } from '../../src/notes/export/txt.ts';

// The "Sinais vitais" block of both export formats, rendered from a document (no database), and
// the RTF read back by LibreOffice where it is installed.

const document: ExportDocument = {
  patient: { name: 'Rex', gender: 'male', date: '2026-11-28', externalId: null },
  species: 'canine',
  sections: [{ title: 'Exame Físico', content: 'Temperatura trinta e nove e oito.' }],
  vitals: [
    { code: 'temperature', value: 39.8, unit: '°C', comparator: null, text: 't', evidence: null, flag: 'high' },
    { code: 'weight', value: 12.3, unit: 'kg', comparator: null, text: 'p', evidence: null, flag: null },
    { code: 'respiratory_rate', value: 8, unit: '/min', comparator: null, text: 'f', evidence: null, flag: 'low' },
    { code: 'capillary_refill_time', value: 2, unit: 's', comparator: '<', text: 'c', evidence: null, flag: null },
    { code: 'body_condition_score', value: 3, unit: '/5', comparator: null, text: 'e', evidence: null, flag: null },
    { code: 'dehydration', value: 6, unit: '%', comparator: '>=', text: 'd', evidence: null, flag: 'high' },
    { code: 'mucous_membranes', value: 'icteric', unit: null, comparator: null, text: 'm', evidence: null, flag: 'abnormal' },
  ],
};
const LINES = [
  '- Temperatura: 39,8 °C [ALTO]',
  '- Peso: 12,3 kg',
  '- Frequência respiratória: 8 /min [BAIXO]',
  '- Tempo de preenchimento capilar: < 2 s',
  '- Escore de condição corporal: 3/5',
  '- Desidratação: ≥ 6% [ALTO]',
  '- Mucosas: ictéricas [ALTERADO]',
];

describe('the Sinais vitais block', () => {
  it('TXT: after the header, before the sections, flags marked', () => {
    expect(renderTxt(document)).toBe(
      [
        'Paciente: Rex\nSexo: Macho\nData: 2026-11-28\nEspécie: Canina',
        ['Sinais vitais', '-------------', ...LINES].join('\n'),
        'Exame Físico\n------------\nTemperatura trinta e nove e oito.\n',
      ].join('\n\n'),
    );
  });

  it('is absent when no vital was said, and the header has no species when none is known', () => {
    const text = renderTxt({ ...document, species: null, vitals: [] });
    expect(text).not.toContain('Sinais vitais');
    expect(text).not.toContain('Espécie');
  });

  it('RTF: a titled block, flagged lines bold in red', () => {
    const rtf = renderRtf(document);
    expect(rtf).toContain('\\b\\cf1 Sinais vitais\\par}');
    expect(rtf).toMatch(/\{\\b\\cf8 - Temperatura: 39,8 \\u176\?C \[ALTO\]\}/);
    expect(rtf).toContain('\\par\n- Peso: 12,3 kg\\par');
  });

  const soffice = ['soffice', 'libreoffice']
    .flatMap((name) => (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name)))
    .find((candidate) => existsSync(candidate));

  it.skipIf(!soffice)('RTF opened by LibreOffice reads the same lines', { timeout: 120_000 }, async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'vetflow-vitals-rtf-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    const file = path.join(work, 'vitals.rtf');
    writeFileSync(file, renderRtf(document));
    await promisify(execFile)(
      soffice!,
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${path.join(work, 'profile')}`,
        '--convert-to',
        'txt:Text (encoded):UTF8',
        '--outdir',
        work,
        file,
      ],
      { timeout: 90_000 },
    );
    const lines = readFileSync(path.join(work, 'vitals.txt'), 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .filter(Boolean);
    expect(lines).toEqual([
      'Paciente: Rex',
      'Sexo: Macho',
      'Data: 2026-11-28',
      'Espécie: Canina',
      'Sinais vitais',
      ...LINES,
      'Exame Físico',
      'Temperatura trinta e nove e oito.',
    ]);
  });
});
