import { json, startFakeServer } from '../providers/fake-openai-server.ts';

// A transcription server (OpenAI-compatible, local) whose answers wait for the test: held until
// `release()`, then each after `latencyMs`. Counts the requests it holds at once, the most it ever
// held, and how many it answered.

const TRANSCRIPT = {
  text: 'Anamnese: tutora relata tosse há cinco dias. Exame físico: temperatura de 39 graus. Diagnóstico: traqueobronquite.',
  language: 'portuguese',
  duration: 23.7,
  segments: [{ start: 0, end: 23.7, text: 'Anamnese: tutora relata tosse há cinco dias.' }],
};

export async function startGatedTranscriber(options: { latencyMs?: number } = {}) {
  const server = await startFakeServer();
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let inFlight = 0;
  let most = 0;
  server.handle(async (_request, response) => {
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      await gate;
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    } finally {
      inFlight--;
    }
    json(response, 200, TRANSCRIPT);
  });
  return {
    baseUrl: server.baseUrl,
    /** Requests received so far (answered or held). */
    get received() {
      return server.requests.length;
    },
    get inFlight() {
      return inFlight;
    },
    get mostInFlight() {
      return most;
    },
    /** Answers every held request, and every later one without holding it. */
    release() {
      open();
    },
    /** Holds every request from now on again, until the next `release()`. */
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    close: () => server.close(),
    /** The environment that points vetflow at this server. */
    env: () => ({
      TRANSCRIPTION_PROVIDER: 'openai',
      TRANSCRIPTION_BASE_URL: server.baseUrl,
      TRANSCRIPTION_API_KEY: 'sk-local-gated',
      TRANSCRIPTION_RETRY_DELAY_SECONDS: '1',
    }),
  };
}
