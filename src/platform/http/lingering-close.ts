import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

// Lingering close (as nginx's lingering_close): a request answered before its body has all arrived
// (413 for an oversized part or upload, 401 before an upload is read, a parse error) gets
// `Connection: close`, and after the answer is written the server keeps reading and dropping the
// rest of the body, for at most LINGER_MAX_BYTES bytes or LINGER_MAX_MS ms, whichever comes first,
// before it closes the socket. Closing a socket that still has unread bytes resets the connection
// (RST), and a client still sending loses the answer it was sent (EPIPE, ECONNRESET); a client that
// stops sending when it reads the answer (curl) closes sooner. A client that never stops is cut off
// at the budget. docs/security.md, "Oversized bodies".

/** At most this many bytes of a refused body are read and dropped after the answer. */
export const LINGER_MAX_BYTES = 32 * 1024 * 1024;
/** At most this long after the answer is written, the rest of a refused body is read and dropped. */
export const LINGER_MAX_MS = 5_000;

/** For route descriptions: what a client still sending a refused body can count on. */
export const LINGERING_CLOSE_NOTE =
  `the answer comes while the body is still arriving, with \`Connection: close\`; the rest of the body is then read and ` +
  `dropped for at most ${LINGER_MAX_BYTES} bytes or ${LINGER_MAX_MS / 1000} s before the connection closes, so a client ` +
  'still sending can read it';

export function registerLingeringClose(app: FastifyInstance): void {
  // A callback hook on the path of every request: an async hook costs a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is false until the body's last byte was read (app.inject's requests have no such flag).
    if (request.raw.complete === false && request.raw.socket instanceof Socket && !request.raw.socket.destroyed) {
      reply.header('connection', 'close');
      lingerAfterAnswer(request.raw, request.raw.socket);
    }
    done(null, payload);
  });
}

/**
 * Node ends a `Connection: close` answer's socket with `destroySoon()` once the answer is written,
 * which destroys it at once: on this socket, that call lingers first.
 */
function lingerAfterAnswer(request: IncomingMessage, socket: Socket): void {
  socket.destroySoon = () => {
    const close = (cut: boolean) => {
      clearTimeout(timer);
      request.off('data', drop);
      request.off('end', finished);
      socket.off('end', finished);
      socket.off('close', closed);
      if (cut) socket.destroy();
      else Socket.prototype.destroySoon.call(socket);
    };
    // The whole body arrived, or the client ended its side: nothing unread, a plain close.
    const finished = () => close(false);
    const closed = () => clearTimeout(timer);
    let bytes = 0;
    const drop = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes >= LINGER_MAX_BYTES) close(true);
    };
    const timer = setTimeout(() => close(true), LINGER_MAX_MS);
    if (request.complete || request.destroyed) return close(false);
    socket.once('end', finished);
    socket.once('close', closed);
    request.once('end', finished);
    // Whoever read the body stopped (a parser that refused it): the rest flows here, and is dropped.
    // A 'data' listener keeps it flowing (a 'readable' listener left behind would pause it).
    request.unpipe();
    request.removeAllListeners('data');
    request.removeAllListeners('readable');
    request.on('data', drop);
  };
}
