import { measureProvider, providerDuration, providerRequests } from '../../platform/metrics/notes.ts';
import type { Drafter } from '../../providers/drafting/port.ts';
import type { Sectioner } from '../../providers/sectioning/port.ts';
import type { TranscriptionProvider } from '../../providers/transcription/port.ts';

/**
 * The providers of note processing, each call counted by provider and outcome (`ok` or the error code) in
 * `vetflow_provider_requests_total`: every chunk of a long audio is one transcription request.
 */
export function measuredProviders(providers: { transcriber: TranscriptionProvider; sectioner: Sectioner; drafter?: Drafter | null }) {
  const { transcriber, sectioner, drafter } = providers;
  return {
    transcriber: {
      name: transcriber.name,
      ...(transcriber.requestLimits ? { requestLimits: transcriber.requestLimits } : {}),
      transcribe: (input, signal) => measureProvider('transcription', transcriber.name, () => transcriber.transcribe(input, signal)),
    } satisfies TranscriptionProvider,
    sectioner: {
      name: sectioner.name,
      section: (input, signal) => measureProvider('sectioning', sectioner.name, () => sectioner.section(input, signal)),
    } satisfies Sectioner,
    drafter: drafter
      ? ({
          name: drafter.name,
          // A drafter answers an unusable draft instead of throwing: that answer's code is the outcome.
          async draft(input, signal) {
            const started = performance.now();
            const outcome = await drafter.draft(input, signal);
            providerRequests.inc({ kind: 'drafting', provider: drafter.name, outcome: outcome.ok ? 'ok' : outcome.code });
            providerDuration.observe({ kind: 'drafting', provider: drafter.name }, (performance.now() - started) / 1000);
            return outcome;
          },
        } satisfies Drafter)
      : null,
  };
}
