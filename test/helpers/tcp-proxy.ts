import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the app and Postgres that can fail the way networks do: `refuse` closes the
 * listener and resets every connection (a server that is down: ECONNREFUSED), `blackhole` accepts
 * connections and silently drops every byte both ways (a partition: nothing ever answers), `pass`
 * forwards again. Connections that lived through a black hole are reset when it ends, as a real
 * partition's would be after TCP gives up.
 */
export class TcpProxy {
  private mode: 'pass' | 'refuse' | 'blackhole' = 'pass';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | undefined; holed: boolean }>();
  private server: Server | undefined;
  port = 0;

  private readonly targetHost: string;
  private readonly targetPort: number;

  private constructor(targetHost: string, targetPort: number) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.listen();
    return proxy;
  }

  /** A proxy in front of the database at `databaseUrl`, and the URL that reaches it through the proxy. */
  static async inFrontOf(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(databaseUrl);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const proxied = new URL(target);
    proxied.host = `127.0.0.1:${proxy.port}`;
    return { proxy, url: proxied.toString() };
  }

  async refuse(): Promise<void> {
    this.mode = 'refuse';
    // close() waits for open connections: reset them first.
    const closed = this.closeListener();
    this.resetAll();
    await closed;
  }

  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) pair.holed = true;
  }

  async pass(): Promise<void> {
    if (this.mode === 'blackhole') this.resetAll();
    this.mode = 'pass';
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    const closed = this.closeListener();
    this.resetAll();
    await closed;
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address && typeof address !== 'string') this.port = address.port;
    this.server = server;
  }

  private async closeListener(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | undefined; holed: boolean } = {
      client,
      upstream: undefined,
      holed: this.mode === 'blackhole',
    };
    this.pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pair.upstream?.destroy();
      this.pairs.delete(pair);
    });
    if (pair.holed) {
      client.on('data', () => {}); // swallowed
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (!pair.holed) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.holed) client.write(chunk);
    });
  }

  private resetAll(): void {
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.destroy();
    }
    this.pairs.clear();
  }
}
