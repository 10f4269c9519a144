import type { Config } from '../../platform/config.ts';
import type { Sectioner } from '../../providers/sectioning/port.ts';
import { createRulesSectioner } from '../../providers/sectioning/rules.ts';
import type { TranscriptionProvider } from '../../providers/transcription/port.ts';
import { createSandboxTranscriber } from '../../providers/transcription/sandbox.ts';

function notYet(setting: string): never {
  throw new Error(`${setting} is not available in this build yet`);
}

/** The transcription provider and sectioner the configuration names. */
export function createConfiguredProviders(config: Config): { transcriber: TranscriptionProvider; sectioner: Sectioner } {
  const rules = createRulesSectioner();
  const transcriber =
    config.TRANSCRIPTION_PROVIDER === 'openai'
      ? notYet('TRANSCRIPTION_PROVIDER=openai')
      : withDelay(createSandboxTranscriber(), config.SANDBOX_TRANSCRIPTION_DELAY_MS);
  const sectioner = config.SECTIONING_PROVIDER === 'openai' ? notYet('SECTIONING_PROVIDER=openai') : rules;
  return { transcriber, sectioner };
}

// The sandbox answers at once; a configured delay lets integrators (and the crash test) see a
// note sit in `processing`.
function withDelay(provider: TranscriptionProvider, delayMs: number): TranscriptionProvider {
  if (delayMs <= 0) return provider;
  return {
    name: provider.name,
    async transcribe(input, signal) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, delayMs);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
      return provider.transcribe(input, signal);
    },
  };
}
