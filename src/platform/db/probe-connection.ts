import pg from 'pg';

/**
 * "Does the server answer?", asked on a connection of its own rather than through the pool: a
 * pool whose connections are all busy with slow statements (or stuck on a dead socket) must not
 * make a healthy database look down, nor a dead one look alive. The connection is kept between
 * probes, so a probe is one round trip; one that fails is closed, and the next probe connects
 * afresh (which is also what tells a black hole from a single dead socket).
 */
export class ProbeConnection {
  private client: pg.Client | undefined;
  private readonly connectionString: string;

  constructor(connectionString: string) {
    this.connectionString = connectionString;
  }

  async probe(timeoutMs: number): Promise<void> {
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

  close(): void {
    this.drop();
  }

  private async selectOne(deadline: number): Promise<void> {
    const remaining = () => Math.max(1, deadline - Date.now());
    if (!this.client) {
      const client = new pg.Client({
        connectionString: this.connectionString,
        application_name: 'vetflow-probe',
        connectionTimeoutMillis: remaining(),
        keepAlive: true,
      });
      // A probe's connection that dies between probes must not crash the process.
      client.on('error', () => {});
      this.client = client;
      await client.connect();
    }
    await this.client.query({ text: 'select 1', query_timeout: remaining() } as pg.QueryConfig);
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    // end() destroys the socket of a connection with a statement still pending (a black hole).
    void client?.end().catch(() => {});
  }
}
