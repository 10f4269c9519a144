import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SectionModel } from '../../src/models/sectioner/model.ts';
import { analyseSentences, assignSentences } from '../../src/models/sectioner/sectioner.ts';
import { SECTION_LABELS, SECTION_TITLES } from '../../src/providers/sectioning/port.ts';
import { createRulesSectioner } from '../../src/providers/sectioning/rules.ts';
import { isPunctuated, loadCorpus, scoreCorpus } from './corpus/corpus.ts';
import { currentFingerprint, FINGERPRINT_URL, TUNED_MODEL_URL } from './corpus/model-fingerprint.ts';

const sectioner = createRulesSectioner();
const section = (text: string) => sectioner.section({ text, segments: [], language: 'pt' }, new AbortController().signal);

describe('rules sectioner on the pt-BR corpus', () => {
  const tuning = loadCorpus('tuning');
  const heldOut = loadCorpus('held-out');
  // Honest figures: a model trained on the tuning part only, scored on the held-out part. Training
  // it takes a minute of CPU, so `npm run train:sectioner` does it and ships the result; the
  // fingerprint test below proves it is what the tuning part and this code learn.
  const tunedModel = JSON.parse(readFileSync(TUNED_MODEL_URL, 'utf8')) as SectionModel;
  const heldOutScore = scoreCorpus(heldOut, (text) => assignSentences(text, tunedModel));

  it('has a corpus large and varied enough to mean something', () => {
    const all = [...tuning, ...heldOut];
    expect(all.length).toBeGreaterThanOrEqual(550);
    expect(all.reduce((sum, t) => sum + t.sentences.length, 0)).toBeGreaterThanOrEqual(10000);
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
    for (const half of [tuning, heldOut]) {
      expect(new Set(half.map((t) => t.style))).toEqual(new Set(['headings', 'plain', 'dialogue']));
      expect(new Set(half.flatMap((t) => t.sentences.map(([label]) => label)))).toEqual(new Set(SECTION_LABELS));
    }
    expect(heldOut.length).toBeGreaterThanOrEqual(100);
    const species = new Set(all.map((t) => t.species));
    for (const group of ['dog', 'cat', 'horse', 'cattle', 'rabbit', 'bird', 'reptile']) expect(species).toContain(group);
    const tuningIds = new Set(tuning.map((t) => t.id));
    expect(heldOut.filter((t) => tuningIds.has(t.id))).toEqual([]);
  });

  // Regression guards a little under today's held-out figures (docs/providers.md): 93.1 % overall
  // (88.5 % right and whole in one section), 94.4 % on punctuated transcripts, the weakest label
  // (observations) 85.6 %. A change that lowers these is a step back.
  it('places held-out sentences right: ≥ 92 % overall, ≥ 87 % whole, ≥ 94 % on punctuated transcripts, every label ≥ 84 %', () => {
    const score = heldOutScore;
    const styles = Object.entries(score.byStyle).map(([style, s]) => `${style} ${s.right}/${s.total}`);
    const labels = Object.entries(score.byLabel).map(([label, s]) => `${label} ${s.right}/${s.total}`);
    console.log(
      `held-out accuracy ${(score.accuracy * 100).toFixed(1)} % (${score.right}/${score.total}; ${styles.join(', ')}; ${labels.join(', ')})`,
    );
    expect(score.accuracy).toBeGreaterThanOrEqual(0.92);
    // A sentence whose words went to two sections is found whole in neither, even if most of it is right.
    const rightButSplit = score.split.filter((miss) => miss.got === miss.expected).length;
    expect((score.right - rightButSplit) / score.total).toBeGreaterThanOrEqual(0.87);
    for (const label of SECTION_LABELS) {
      const recall = score.byLabel[label]!;
      expect(recall.right / recall.total, label).toBeGreaterThanOrEqual(0.84);
    }
    const punctuated = heldOut.filter(isPunctuated);
    const punctuatedScore = scoreCorpus(punctuated, (text) => assignSentences(text, tunedModel));
    expect(punctuatedScore.accuracy).toBeGreaterThanOrEqual(0.94);
    // Where punctuation marks the sentences, hardly any is spread over two sections.
    expect(punctuatedScore.split.length).toBeLessThanOrEqual(Math.ceil(punctuatedScore.total * 0.01));
  });

  it('ships the models `npm run train:sectioner` learned from this corpus with this code', () => {
    // The fingerprint written at training time, against the corpus, code and both models on disk
    // now (the shipped one and the held-out evaluation's): a corpus batch, a feature or a model
    // changed without retraining fails here, in milliseconds (retraining to compare takes minutes:
    // `npm run check:sectioner`).
    const recorded = JSON.parse(readFileSync(FINGERPRINT_URL, 'utf8'));
    expect(
      currentFingerprint(),
      'run npm run train:sectioner and commit model.json and tuned-model.json with model.fingerprint.json',
    ).toEqual(recorded);
  });

  it('the scorer itself notices a labeller that is wrong, and a sentence split across sections', () => {
    const allObservations = (text: string) => [{ start: 0, end: text.length, label: 'observations' as const }];
    expect(scoreCorpus(heldOut, allObservations).accuracy).toBeLessThan(0.2);
    const transcript = heldOut[0]!;
    const [, first] = transcript.sentences[0]!;
    const halves = (text: string) => [
      { start: 0, end: Math.floor(first.length / 2), label: 'diagnosis' as const },
      { start: Math.floor(first.length / 2), end: text.length, label: 'treatment' as const },
    ];
    expect(scoreCorpus([transcript], halves).split).toHaveLength(1);
  });
});

describe('rules sectioner behaviour', () => {
  it('strips spoken headings, uses the port titles and the canonical order, and skips empty sections', async () => {
    const sections = await section(
      'Tratamento: amoxicilina 20 mg/kg a cada 12 horas. Anamnese: tutor relata tosse há dois dias. Exame físico: temperatura 39,1.',
    );
    expect(sections).toEqual([
      { label: 'anamnesis', title: SECTION_TITLES.anamnesis, content: 'tutor relata tosse há dois dias.' },
      { label: 'physical_exam', title: SECTION_TITLES.physical_exam, content: 'temperatura 39,1.' },
      { label: 'treatment', title: SECTION_TITLES.treatment, content: 'amoxicilina 20 mg/kg a cada 12 horas.' },
    ]);
  });

  it('recognises headings with or without accents, in any case, with different delimiters', async () => {
    const sections = await section('DIAGNOSTICO - otite externa. observações: animal dócil. Exame Físico. Sem alterações.');
    expect(sections.map((s) => [s.label, s.content])).toEqual([
      ['physical_exam', 'Sem alterações.'],
      ['diagnosis', 'otite externa.'],
      ['observations', 'animal dócil.'],
    ]);
  });

  it('keeps a spoken heading in force for the sentences after it', async () => {
    // Without the heading, the temperature and the dose would pull these sentences elsewhere.
    const sections = await section(
      'Anamnese: cão de três anos. A tutora mediu a temperatura em casa, 39,5 graus. Deu dipirona 25 mg/kg por conta própria. Exame físico: mucosas rosadas.',
    );
    expect(sections.map((s) => s.label)).toEqual(['anamnesis', 'physical_exam']);
  });

  it('lets "Prescrevo" and "Retorno em" switch the section without losing their words', async () => {
    const sections = await section('Diagnóstico: otite. Prescrevo otológico a cada 12 horas. Retorno em 10 dias.');
    expect(sections.map((s) => [s.label, s.content])).toEqual([
      ['diagnosis', 'otite.'],
      ['treatment', 'Prescrevo otológico a cada 12 horas.'],
      ['follow_up', 'Retorno em 10 dias.'],
    ]);
  });

  it('classifies by cue words without headings', async () => {
    const sections = await section(
      'Tutor relata vômito há três dias. Temperatura 39,5 e mucosas hipocoradas. Suspeita de gastrite. Omeprazol 1 mg/kg a cada 24 horas. Retornar em 7 dias.',
    );
    expect(sections.map((s) => s.label)).toEqual(['anamnesis', 'physical_exam', 'diagnosis', 'treatment', 'follow_up']);
  });

  it('files the tutor’s complaints in a dialogue under anamnesis and keeps the speaker lines apart', async () => {
    const sections = await section(
      'Vet: Bom dia!\nTutora: Ela está mancando.\nTutora: E chora quando sobe no sofá.\nVet: Dor à palpação do joelho.',
    );
    expect(sections.map((s) => [s.label, s.content])).toEqual([
      ['anamnesis', 'Tutora: Ela está mancando.\nTutora: E chora quando sobe no sofá.'],
      ['physical_exam', 'Vet: Dor à palpação do joelho.'],
      ['observations', 'Vet: Bom dia!'],
    ]);
  });

  it('puts a transcript it cannot place at all in observations, and nothing for an empty transcript', async () => {
    expect(await section('Xyzzy plugh qwfp.')).toEqual([{ label: 'observations', title: 'Observações', content: 'Xyzzy plugh qwfp.' }]);
    expect(await section('   \n ')).toEqual([]);
  });

  it('does not end a sentence at an initial such as "E. coli"', () => {
    const sentences = assignSentences('Suspeita de infecção por E. coli resistente. Tutor ciente.');
    expect(sentences.map((s) => s.text)).toEqual(['Suspeita de infecção por E. coli resistente.', 'Tutor ciente.']);
  });

  it('cuts an unpunctuated run where the speech-to-text segments start, and keeps every character', async () => {
    const parts = [
      'bom dia doutora pode entrar coloca ela aqui na mesa',
      'ela ta vomitando desde ontem e nao quer comer nada',
      'temperatura trinta e nove e meio mucosas rosadas abdomen doloroso na palpacao',
      'vou passar omeprazol um miligrama por quilo de doze em doze horas por cinco dias',
      'retorno em sete dias ou antes se voltar a vomitar',
    ];
    const text = parts.join(' ');
    const withSegments = await sectioner.section(
      { text, segments: parts.map((part, i) => ({ start: i * 5, end: i * 5 + 5, text: part })), language: 'pt' },
      new AbortController().signal,
    );
    expect(withSegments.map((s) => s.label)).toEqual(['anamnesis', 'physical_exam', 'treatment', 'observations', 'follow_up']);
    const squash = (value: string) => value.replace(/\s+/g, ' ').trim();
    for (const part of parts) expect(withSegments.filter((s) => squash(s.content).includes(part))).toHaveLength(1);
  });

  it('starts a sentence at every segment start inside a run, and only there when the words give no cue', () => {
    const segments = ['zorp blick fnord', 'quux wibble zorp blick', 'fnord quux wibble', 'zorp zorp blick fnord quux'].map((text) => ({
      text,
    }));
    const text = segments.map((segment) => segment.text).join(' ');
    const long = `${text} ${text}`;
    const doubled = [...segments, ...segments];
    expect(assignSentences(long, undefined, doubled).map((s) => s.text)).toEqual(doubled.map((segment) => segment.text));
    expect(assignSentences(long).map((s) => s.text)).toEqual([long]);
  });

  it("reads speaker labels as features: roles, and a diarizing server's changes of speaker for every sentence of a turn", () => {
    const model = JSON.parse(readFileSync(new URL('../../src/models/sectioner/model.json', import.meta.url), 'utf8'));
    const diarized = analyseSentences('A: Bom dia. Ele tá vomitando desde ontem.\nB: Vamos examinar.', model.boundary);
    expect(diarized.map((s) => s.features.filter((f) => f.startsWith('sp:')))).toEqual([[], ['sp:same'], ['sp:change']]);
    const roles = analyseSentences('Tutora: Ele não come. Vet: Vou examinar.', model.boundary);
    expect(roles.map((s) => s.features.filter((f) => f.startsWith('sp:')))).toEqual([['sp:tutor'], ['sp:vet', 'sp:change']]);
    expect(diarized.map((s) => s.text)).toEqual(['A: Bom dia.', 'Ele tá vomitando desde ontem.', 'B: Vamos examinar.']);
  });

  it('never cuts a long sentence of a punctuated transcript by guesswork, but does cut the same words run on', () => {
    const long =
      'Ao exame, temperatura de trinta e nove e oito, mucosas hipocoradas e abdômen dolorido à palpação, então vou internar, colher sangue para hemograma e começar fluido na veia hoje.';
    const punctuated = `Ele parou de comer ontem. Vomitou duas vezes. ${long} Tutora ciente dos custos.`;
    const sentences = assignSentences(punctuated);
    expect(sentences.filter((s) => s.text === long)).toHaveLength(1);
    const runOn = punctuated.toLowerCase().replace(/[.,]/g, '');
    expect(assignSentences(runOn).length).toBeGreaterThan(1);
  });

  it('ignores speech-to-text segments that start inside a punctuated sentence', () => {
    const text =
      'Ele vomitou três vezes desde ontem e não quer comer. Temperatura de trinta e nove e oito e mucosas pálidas. Vou internar hoje.';
    // A server that cuts every five words, whatever the sentences.
    const words = text.split(' ');
    const segments = Array.from({ length: Math.ceil(words.length / 5) }, (_, i) => ({ text: words.slice(i * 5, i * 5 + 5).join(' ') }));
    expect(assignSentences(text, undefined, segments).map((s) => s.text)).toEqual([
      'Ele vomitou três vezes desde ontem e não quer comer.',
      'Temperatura de trinta e nove e oito e mucosas pálidas.',
      'Vou internar hoje.',
    ]);
  });

  it('does not split after abbreviations such as "Dr." and keeps decimals whole', () => {
    const sentences = assignSentences('Dr. Paulo: peso 3.5 kg. Tutor: ok.');
    expect(sentences.map((s) => s.text)).toEqual(['Dr. Paulo: peso 3.5 kg.', 'Tutor: ok.']);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(sectioner.section({ text: 'Anamnese: ok.', segments: [], language: 'pt' }, controller.signal)).rejects.toThrow();
  });
});
