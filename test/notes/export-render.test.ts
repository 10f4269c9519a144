import { describe, expect, it } from 'vitest';
import type { ExportDocument } from '../../src/notes/export/export-document.ts';
import { attachmentDisposition } from '../../src/notes/export/filename.ts';
import { escapeRtf, renderRtf } from '../../src/notes/export/rtf.ts';
import { renderTxt } from '../../src/notes/export/txt.ts';

const document: ExportDocument = {
  patient: { name: 'Tóbi', gender: 'female', date: '2026-05-01', externalId: null },
  sections: [
    { title: 'Anamnese', content: 'Vômito há 2 dias.\r\nSem diarreia.' },
    { title: 'Seguimento', content: '' },
  ],
};

describe('renderTxt', () => {
  it('writes the header (no external id line when there is none) and underlined sections', () => {
    expect(renderTxt(document)).toBe(
      'Paciente: Tóbi\nSexo: Fêmea\nData: 2026-05-01\n\nAnamnese\n--------\nVômito há 2 dias.\nSem diarreia.\n\nSeguimento\n----------\n',
    );
  });
});

const clinical: ExportDocument = {
  patient: { name: 'Tóbi', gender: 'male', date: '2026-05-01', externalId: null },
  style: 'clinical',
  sections: [{ title: 'Tratamento', content: 'Omeprazol 1 mg/kg a cada 24 h.' }],
  reviewFlags: [
    { section: 'treatment', sentence: 'Meloxicam 0,2 mg/kg a cada 12 h.', reason: 'ungrounded', token: '0,2' },
    { section: 'treatment', sentence: 'Meloxicam 0,2 mg/kg a cada 12 h.', reason: 'ungrounded', token: 'a cada 12 h' },
    { section: 'physical_exam', sentence: 'Mucosas normocoradas.', reason: 'no_citation', token: null },
  ],
};

describe('a simulated (sandbox) note', () => {
  const simulated: ExportDocument = {
    ...document,
    simulated: true,
    reviewFlags: [{ section: null, sentence: null, reason: 'simulated_transcript', token: null }],
  };

  it('TXT: opens with the SIMULADO line, then the header, and says why under "Revisar"', () => {
    expect(renderTxt(simulated)).toBe(
      'SIMULADO — transcrição de teste\n\nPaciente: Tóbi\nSexo: Fêmea\nData: 2026-05-01\n\n' +
        'Revisar\n-------\n- Transcrição simulada (provedor sandbox): o texto não foi reconhecido do áudio e nada nesta nota vem da consulta.\n\n' +
        'Anamnese\n--------\nVômito há 2 dias.\nSem diarreia.\n\nSeguimento\n----------\n',
    );
    expect(renderTxt({ ...document, simulated: false })).toBe(renderTxt(document));
  });

  it('RTF: the banner is the first paragraph, bold and red', () => {
    const rtf = renderRtf(simulated);
    const banner = `{\\pard\\sa200\\f0\\fs32\\b\\cf8 ${escapeRtf('SIMULADO — transcrição de teste')}\\par}`;
    expect(rtf).toContain(`\\viewkind4\n${banner}\n`);
    expect(renderRtf({ ...document, simulated: false })).not.toContain('SIMULADO');
  });
});

describe('the "Revisar" block', () => {
  it('TXT: after the header, one line per flagged sentence with its missing tokens together', () => {
    expect(renderTxt(clinical)).toBe(
      'Paciente: Tóbi\nSexo: Macho\nData: 2026-05-01\nEstilo: Clínico (redigido por modelo de linguagem)\n\n' +
        'Revisar\n-------\n' +
        '- Tratamento: "Meloxicam 0,2 mg/kg a cada 12 h." — "0,2", "a cada 12 h" não constam nas falas citadas; frase retirada da nota.\n' +
        '- Exame Físico: "Mucosas normocoradas." — nenhuma fala da transcrição citada; frase retirada da nota.\n\n' +
        'Tratamento\n----------\nOmeprazol 1 mg/kg a cada 24 h.\n',
    );
  });

  it('TXT: a verbatim fallback says why, and no block at all when nothing needs review', () => {
    const fallback: ExportDocument = {
      ...document,
      style: 'verbatim',
      reviewFlags: [{ section: null, sentence: null, reason: 'drafting_unavailable', token: null }],
    };
    expect(renderTxt(fallback)).toContain('Revisar\n-------\n- O modelo de redação não estava disponível: nota no estilo literal');
    expect(renderTxt(fallback)).not.toContain('Estilo');
    expect(renderTxt({ ...document, reviewFlags: [] })).toBe(renderTxt(document));
  });

  it('TXT: a possibly misheard drug name says what it may be', () => {
    const misheard: ExportDocument = {
      ...document,
      reviewFlags: [
        {
          section: null,
          sentence: 'vou passar carpofeno dois virgula dois',
          reason: 'possible_drug_misrecognition',
          token: 'carpofeno',
          said: 'carpofeno',
          suggestion: 'carprofeno',
          evidence: { start: 12, end: 19 },
        },
      ],
    };
    expect(renderTxt(misheard)).toContain(
      'Revisar\n-------\n- "carpofeno" na transcrição pode ser "carprofeno" mal reconhecido; confira o medicamento dito.\n',
    );
  });

  it('RTF: a red titled block before the sections, section colours unchanged', () => {
    const rtf = renderRtf(clinical);
    expect(rtf).toContain('\\red192\\green0\\blue0;}');
    expect(rtf).toContain('\\cf8 Revisar\\par}');
    expect(rtf.indexOf('Revisar')).toBeLessThan(rtf.indexOf('Omeprazol'));
    expect(rtf).toContain('\\cf2 Omeprazol 1 mg/kg a cada 24 h.\\par}');
  });
});

describe('escapeRtf', () => {
  it('escapes RTF specials and writes non-ASCII as \\uN with a letter fallback', () => {
    expect(escapeRtf('a\\b{c}d')).toBe('a\\\\b\\{c\\}d');
    expect(escapeRtf('ação')).toBe('a\\u231c\\u227ao');
    expect(escapeRtf('Ç')).toBe('\\u199C');
    // No letter to fall back to (a digit would run into the number): "?".
    expect(escapeRtf('39 °C ²')).toBe('39 \\u176?C \\u178?');
    // Beyond the BMP: two signed surrogate escapes.
    expect(escapeRtf('🐶')).toBe('\\u-10179?\\u-9162?');
    expect(escapeRtf('a\tb\u0007c')).toBe('a\\tab bc');
  });
});

describe('renderRtf', () => {
  it('puts every line of a section in its own paragraph and keeps braces balanced', () => {
    const rtf = renderRtf(document);
    expect(rtf).toContain('V\\u244omito h\\u225a 2 dias.\\par\nSem diarreia.\\par}');
    let depth = 0;
    for (const [index, char] of [...rtf].entries()) {
      if (rtf[index - 1] === '\\') continue;
      depth += char === '{' ? 1 : char === '}' ? -1 : 0;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
  });
});

describe('attachmentDisposition', () => {
  it('folds accents for filename and percent-encodes the real name in filename*', () => {
    expect(attachmentDisposition('Tóbi', '2026-05-01', 'rtf')).toBe(
      `attachment; filename="Tobi-2026-05-01.rtf"; filename*=UTF-8''T%C3%B3bi-2026-05-01.rtf`,
    );
    expect(attachmentDisposition(' Zé "Pipoca" (o gato)/../', '2026-05-01', 'txt')).toBe(
      `attachment; filename="Ze-Pipoca-o-gato-2026-05-01.txt"; filename*=UTF-8''Z%C3%A9%20%22Pipoca%22%20%28o%20gato%29%2F..%2F-2026-05-01.txt`,
    );
    expect(attachmentDisposition('毛毛', '2026-05-01', 'txt')).toMatch(/^attachment; filename="nota-2026-05-01.txt"; /);
  });
});
