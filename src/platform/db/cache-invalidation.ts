import pg from 'pg';

// Credential caches (Notes keys, CRM bearer keys) are per process. A revocation must reach every
// process at once, not after a cache TTL: the revoking transaction announces it with pg_notify,
// which Postgres delivers to every listener when (and only if) the transaction commits, and each
// process listens on one connection of its own. The announcing side is `announce-invalidation.ts`.

/** The one channel every announcement travels on; the payload is the topic (which cache). */
export const INVALIDATION_CHANNEL = 'vetflow_cache_invalidation';

export interface CacheInvalidation {
  /**
   * Calls `clear` whenever `topic` is announced by any process, and whenever announcements may have
   * been missed (the listening connection was lost, or came back). Returns the unsubscribe.
   */
  onInvalidate(topic: string, clear: () => void): () => void;
  /**
   * True while announcements reach this process. A cache must keep no entry while it is false: a
   * revocation made meanwhile would not reach it.
   */
  readonly live: boolean;
  close(): Promise<void>;
}

/** Subscribers by topic, and the fan-out both implementations share. */
class Subscribers {
  private readonly byTopic = new Map<string, Set<() => void>>();

  add(topic: string, clear: () => void): () => void {
    let set = this.byTopic.get(topic);
    if (!set) {
      set = new Set();
      this.byTopic.set(topic, set);
    }
    set.add(clear);
    return () => set.delete(clear);
  }

  fire(topic: string): void {
    for (const clear of this.byTopic.get(topic) ?? []) clear();
  }

  fireAll(): void {
    for (const topic of this.byTopic.keys()) this.fire(topic);
  }
}

export interface ListenerOptions {
  connectTimeoutMs: number;
  /** How often the listening connection proves it still answers (a black-holed one would not say). */
  heartbeatMs?: number;
  /** Bounds on waiting before the next attempt after the connection was lost. */
  retryMinMs?: number;
  retryMaxMs?: number;
  onStateChange?: (live: boolean, error?: unknown) => void;
}

/**
 * Postgres: one dedicated connection per process, opened with the first subscription, that LISTENs
 * and reconnects (with backoff) after any error. An error on it never reaches the process: it only
 * marks the caches untrusted until the connection is back.
 */
export function postgresInvalidation(connectionString: string, options: ListenerOptions): CacheInvalidation {
  const subscribers = new Subscribers();
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const retryMinMs = options.retryMinMs ?? 250;
  const retryMaxMs = options.retryMaxMs ?? 5_000;
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let started = false;
  let retryMs = retryMinMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const setLive = (value: boolean, error?: unknown) => {
    if (live === value) return;
    live = value;
    options.onStateChange?.(value, error);
  };

  const lost = (lostClient: pg.Client, error?: unknown) => {
    if (client !== lostClient) return;
    client = undefined;
    clearInterval(heartbeat);
    lostClient.removeAllListeners('notification');
    lostClient.on('error', () => {});
    lostClient.end().catch(() => {});
    setLive(false, error);
    // Whatever was announced while we were deaf: the caches start over.
    subscribers.fireAll();
    if (closed) return;
    retryTimer = setTimeout(connect, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, retryMaxMs);
  };

  const connect = () => {
    if (closed) return;
    const next = new pg.Client({
      connectionString,
      application_name: 'vetflow-listen',
      connectionTimeoutMillis: options.connectTimeoutMs,
      // A round trip that never comes back (a black-holed network) is a lost connection.
      query_timeout: options.connectTimeoutMs,
      keepAlive: true,
    });
    client = next;
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (message.channel === INVALIDATION_CHANNEL && message.payload) subscribers.fire(message.payload);
    });
    next
      .connect()
      .then(() => next.query(`LISTEN ${INVALIDATION_CHANNEL}`))
      .then(() => {
        // Closed (or replaced) while connecting: this connection must not outlive it.
        if (client !== next || closed) return void next.end().catch(() => {});
        retryMs = retryMinMs;
        // Announcements made before LISTEN took effect were missed.
        subscribers.fireAll();
        setLive(true);
        heartbeat = setInterval(() => {
          next.query('select 1').catch((error) => lost(next, error));
        }, heartbeatMs);
        heartbeat.unref();
      })
      .catch((error) => lost(next, error));
  };

  return {
    onInvalidate(topic, clear) {
      const unsubscribe = subscribers.add(topic, clear);
      if (!started) {
        started = true;
        connect();
      }
      return unsubscribe;
    },
    get live() {
      return live;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      clearInterval(heartbeat);
      const current = client;
      client = undefined;
      live = false;
      if (current) await current.end().catch(() => {});
    },
  };
}

/** The PGlite subset we use: LISTEN on the embedded database's one connection. */
interface Listenable {
  listen(channel: string, callback: (payload: string) => void): Promise<unknown>;
}

/**
 * The embedded database serves one process, so announcements come back to it through PGlite's own
 * LISTEN (still at commit). Always live: there is no connection to lose.
 */
export function embeddedInvalidation(client: Listenable): CacheInvalidation {
  const subscribers = new Subscribers();
  let listening = false;
  return {
    onInvalidate(topic, clear) {
      if (!listening) {
        listening = true;
        // PGlite reports a failed LISTEN through this promise; there is no connection to retry.
        client.listen(INVALIDATION_CHANNEL, (payload) => subscribers.fire(payload)).catch(() => {});
      }
      return subscribers.add(topic, clear);
    },
    live: true,
    async close() {},
  };
}
