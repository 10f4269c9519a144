import pg from 'pg';
import { within } from './within.ts';

// pg's own connect timeout only backstops ours (within.ts), which tolerates a stalled process; pg's
// destroys the socket of a connection that never completed.
const CONNECT_BACKSTOP_MS = 1_000;

/**
 * "Does the server answer?", asked on a connection of its own rather than through the pool: a
 * pool whose connections are all busy with slow statements (or stuck on a dead socket) must not
 * make a healthy database look down, nor a dead one look alive. The connection is kept between
 * probes, so a probe is one round trip; one that fails is closed, and the next probe connects
 * afresh (which is also what tells a black hole from a single dead socket).
 */
export class ProbeConnection {
  private client: pg.Client | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly connectionString: string;

  constructor(connectionString: string) {
    this.connectionString = connectionString;
  }

  /** Rejects when the server does not answer within `timeoutMs`; concurrent callers share one probe. */
  probe(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('probe connection closed'));
    this.running ??= this.run(timeoutMs).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  close(): void {
    this.closed = true;
    this.drop();
  }

  private async run(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const reused = this.client !== undefined;
    try {
      await this.selectOne(deadline);
    } catch (error) {
      this.drop();
      // A kept connection may have died on its own (a server restart, an idle timeout on the way):
      // one fresh try within the same budget before calling the database unreachable.
      if (!reused || deadline - Date.now() < 50) throw error;
      await this.selectOne(deadline).catch((retryError: unknown) => {
        this.drop();
        throw retryError;
      });
    }
  }

  private async selectOne(deadline: number): Promise<void> {
    const remaining = () => Math.max(1, deadline - Date.now());
    let client = this.client;
    if (!client) {
      client = new pg.Client({
        connectionString: this.connectionString,
        application_name: 'vetflow-probe',
        connectionTimeoutMillis: remaining() + CONNECT_BACKSTOP_MS,
        keepAlive: true,
      });
      // A probe's connection that dies between probes must not crash the process.
      client.on('error', () => {});
      this.client = client;
      await within(client.connect(), remaining(), 'database probe: no connection');
      if (this.closed) {
        // Closed while connecting: this connection would otherwise be nobody's to end.
        this.drop();
        throw new Error('probe connection closed');
      }
    }
    // No query_timeout: a timed-out probe's connection is dropped (end() destroys its socket).
    await within(client.query('select 1'), remaining(), 'database probe: no answer');
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    // end() destroys the socket of a connection with a statement still pending (a black hole).
    void client?.end().catch(() => {});
  }
}
