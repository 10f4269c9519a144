import { connect, createServer, type Server, type Socket } from 'node:net';

// Postgres frontend protocol: the first message (startup, or an SSL/GSS request before it) has no
// type byte; every later one is a type byte and a length that counts itself.
const SSL_REQUEST = 80_877_103;
const GSS_REQUEST = 80_877_104;
const PARSE = 'P'.charCodeAt(0);

export interface ParsedStatement {
  /** The statement name the client prepared it under: '' for an unnamed statement. */
  readonly name: string;
  readonly text: string;
}

/**
 * A TCP proxy in front of Postgres (or a pooler) that records every Parse message clients send
 * through it: what a transaction-mode pooler would see. The proof that a connection prepares no
 * named statement is on the wire, not in our code's intentions.
 */
export class StatementRecorder {
  readonly parsed: ParsedStatement[] = [];
  readonly url: string;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(server: Server, url: string) {
    this.server = server;
    this.url = url;
  }

  /** A recorder in front of the database at `databaseUrl`, and the URL that reaches it through the recorder. */
  static async inFrontOf(databaseUrl: string): Promise<StatementRecorder> {
    const target = new URL(databaseUrl);
    let recorder: StatementRecorder | undefined;
    const server = createServer((client) => recorder?.accept(client, target.hostname, Number(target.port || 5432)));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    const through = new URL(target);
    through.host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    recorder = new StatementRecorder(server, through.toString());
    return recorder;
  }

  /** The statements that were prepared under a name. */
  get named(): ParsedStatement[] {
    return this.parsed.filter((statement) => statement.name !== '');
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, host: string, port: number): void {
    const upstream = connect(port, host);
    this.sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8 || pending.length < pending.readInt32BE(0)) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(pending.readInt32BE(0));
          started = code !== SSL_REQUEST && code !== GSS_REQUEST;
          continue;
        }
        if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) break;
        const length = pending.readInt32BE(1);
        if (pending[0] === PARSE) this.parsed.push(parseMessage(pending.subarray(5, 1 + length)));
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        other.destroy();
        this.sockets.delete(socket);
      });
    }
  }
}

/** A Parse message's body: the statement name and the query text, each NUL-terminated. */
function parseMessage(body: Buffer): ParsedStatement {
  const nameEnd = body.indexOf(0);
  const textEnd = body.indexOf(0, nameEnd + 1);
  return { name: body.toString('utf8', 0, nameEnd), text: body.toString('utf8', nameEnd + 1, textEnd) };
}
