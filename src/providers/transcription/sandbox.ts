// The `sandbox` transcriber: no network, no model, and no transcription. It tells a plausible pt-BR
// consultation chosen from the audio's hash and the patient's name, so integrators get stable,
// realistic notes (the same upload always reads the same) and can force a failure with a patient
// named FAIL. Like a payment provider's test mode, its transcripts say `simulated`: the note they
// become is marked so everywhere it goes, and nobody takes it for what the recording said.

import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError } from '../provider-error.ts';
import type { Transcript, TranscriptionInput, TranscriptionProvider, TranscriptSegment } from './port.ts';
import { SCENARIOS, type Scenario } from './sandbox-scenarios.ts';

export interface SandboxTranscriberOptions {
  /** Pretend the work takes this long (lets a client watch the `processing` state); default 0. */
  delayMs?: number;
}

type Style = 'headings' | 'plain' | 'dialogue';
const STYLES: Style[] = ['headings', 'plain', 'dialogue'];

/** Deterministic choices drawn from a digest of the audio hash and the patient name. */
function chooser(sha256: string, patientName: string) {
  const digest = createHash('sha256').update(`${sha256}\0${patientName.trim().toLowerCase()}`).digest();
  return (slot: number, choices: number) => digest[slot % digest.length]! % choices;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

function dictate(scenario: Scenario, withHeadings: boolean, intro: string): string[] {
  const head = (heading: string, sentences: string[]) =>
    withHeadings ? sentences.map((sentence, i) => (i === 0 ? `${heading}: ${sentence}` : sentence)) : sentences;
  return [
    ...head('Anamnese', [intro, ...scenario.history]),
    ...head('Exame físico', scenario.exam),
    ...head('Diagnóstico', scenario.diagnosis),
    ...head('Tratamento', scenario.treatment),
    withHeadings ? `Retorno: ${scenario.followUp}` : `Retorno ${scenario.followUp}`,
  ];
}

function converse(scenario: Scenario, name: string): string[] {
  return [
    'Veterinária: Bom dia, tudo bem?',
    `Veterinária: O que está acontecendo com ${name}?`,
    ...scenario.tutorSays.map((line) => `Tutor: ${line}`),
    'Veterinária: Vamos examinar, pode colocar na mesa.',
    ...[...scenario.exam, ...scenario.diagnosis, ...scenario.treatment, `Retorno ${scenario.followUp}`].map(
      (line) => `Veterinária: ${line}`,
    ),
    'Tutor: Obrigado, doutora.',
  ];
}

/** Spreads the sentences over the audio, each taking time in proportion to its length. */
function timeSegments(sentences: string[], durationSeconds: number): TranscriptSegment[] {
  const totalChars = sentences.reduce((sum, s) => sum + s.length, 0);
  const round = (seconds: number) => Math.round(seconds * 100) / 100;
  let elapsedChars = 0;
  return sentences.map((text) => {
    const start = (elapsedChars / totalChars) * durationSeconds;
    elapsedChars += text.length;
    const end = (elapsedChars / totalChars) * durationSeconds;
    // A short pause between sentences, as real segments have.
    return { start: round(start), end: round(Math.max(start, end - Math.min(0.3, (end - start) / 4))), text };
  });
}

export function sandboxTranscript(input: Pick<TranscriptionInput, 'sha256' | 'sandbox' | 'durationSeconds'>): Transcript {
  const patientName = input.sandbox?.patientName ?? '';
  const choose = chooser(input.sha256, patientName);
  const scenario = SCENARIOS[choose(0, SCENARIOS.length)]!;
  const style = STYLES[choose(1, STYLES.length)]!;
  const name = patientName.trim() || 'paciente';
  const values = {
    name,
    days: String(2 + choose(2, 6)),
    temp: `${38 + choose(3, 2)},${choose(4, 10)}`,
    hr: String(90 + 10 * choose(5, 8)),
    weight: `${scenario.weightKg[0] + choose(6, scenario.weightKg[1] - scenario.weightKg[0])},${choose(7, 10)}`,
    ret: String([5, 7, 10, 14, 15][choose(8, 5)]),
  };
  const intro = `Paciente ${name}, ${scenario.animal}, ${2 + choose(9, 12)} anos.`;
  const lines = style === 'dialogue' ? converse(scenario, name) : dictate(scenario, style === 'headings', intro);
  const sentences = lines.map((line) => fill(line, values));
  return {
    text: sentences.join(style === 'dialogue' ? '\n' : ' '),
    language: 'pt',
    durationSeconds: input.durationSeconds,
    segments: timeSegments(sentences, input.durationSeconds),
    provider: 'sandbox',
    model: null,
    simulated: true,
  };
}

export function createSandboxTranscriber(options: SandboxTranscriberOptions = {}): TranscriptionProvider {
  return {
    name: 'sandbox',
    async transcribe(input, signal) {
      signal.throwIfAborted();
      if (input.sandbox?.patientName.trim().toLowerCase() === 'fail') {
        throw new ProviderError('SANDBOX_FORCED_FAILURE', 'The sandbox transcriber fails on purpose for a patient named FAIL', {
          retryable: false,
        });
      }
      if (options.delayMs) await sleep(options.delayMs, undefined, { signal });
      return sandboxTranscript(input);
    },
  };
}
