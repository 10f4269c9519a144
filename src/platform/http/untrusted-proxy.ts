import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Warns once, at the first request that carries X-Forwarded-For while TRUST_PROXY is false: the
 * service is then most likely behind a load balancer it does not trust, so every client shares the
 * balancer's address. The brute-force guard would count them all as one (one guesser blocks every
 * login behind it) and the audit log would name the balancer. The header itself stays ignored:
 * trusting it without TRUST_PROXY would let any client pick its own address.
 */
export function warnOnUntrustedProxy(app: FastifyInstance, trustProxy: Config['TRUST_PROXY']): void {
  if (trustProxy !== false) return;
  let warned = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && request.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      request.log.warn(
        { peer: request.socket.remoteAddress },
        'requests arrive with X-Forwarded-For but TRUST_PROXY=false: every client behind that proxy shares its address ' +
          '(brute-force blocks, audit log); set TRUST_PROXY to the address of the proxy',
      );
    }
    done();
  });
}
