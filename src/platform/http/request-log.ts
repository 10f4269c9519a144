import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from '../logger.ts';

/**
 * One `info` line per request, when it completes: the request (method, URL, address and headers as
 * the logger's `req` serializer allows them) together with its status and time. Fastify's own
 * "incoming request" line is kept at `debug`, for following requests as they arrive. Every log line
 * costs its serialisation, the redaction paths and a write: two per request were ~12 % of the CPU
 * of GET /notes/{id} under load (docs/benchmarks.md).
 */
export class RequestLogController extends LogController {
  private readonly completedLines: Logger;
  private readonly requestIdLabel: string;

  constructor(options: { requestIdLogLabel: string }, logger: Logger) {
    super(options);
    this.requestIdLabel = options.requestIdLogLabel;
    // The completed line is built from allowlists only: the `req` serializer (allowlisted headers,
    // censored URL), the status and the time. The logger's redaction paths, walked on every line,
    // could find nothing to censor in it and were ~4 % of the CPU of GET /notes/{id} under load, so
    // this one line goes through a child without them. Errors keep the redacting request logger.
    this.completedLines = logger.child(
      {},
      { redact: [], serializers: { res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }) } },
    );
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else
      this.completedLines.info(
        { [this.requestIdLabel]: request.id, req: request, res: reply, responseTime: reply.elapsedTime },
        'request completed',
      );
  }
}
