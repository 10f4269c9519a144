import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One `info` line per request, when it completes: the request (method, URL, address and headers as
 * the logger's `req` serializer allows them) together with its status and time. Fastify's own
 * "incoming request" line is kept at `debug`, for following requests as they arrive. Every log line
 * costs its serialisation, the redaction paths and a write: two per request were ~12 % of the CPU
 * of GET /notes/{id} under load (docs/benchmarks.md).
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
