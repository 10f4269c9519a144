import { isDatabaseUnavailable } from './db/unavailable.ts';
import type { Logger } from './logger.ts';

/**
 * What an error that escaped every handler does to the process. A database fault (a connection
 * the server or the network ended while nothing was listening) is logged and survived: the pool
 * reconnects and DatabaseAvailability answers 503 meanwhile. A database outage must never restart
 * the process, which would also kill every upload in flight and, with ROLE=all, the API with the
 * worker. Anything else is a bug whose damage is unknown: `shutdown` is called, once; a second
 * one while shutting down exits at once.
 */
export function handleEscapedErrors(logger: Logger, shutdown: (error: unknown) => void): void {
  let shuttingDown = false;
  const handle = (error: unknown) => {
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error }, 'database connection fault outside any request: survived');
      return;
    }
    if (shuttingDown) {
      logger.fatal({ err: error }, 'second unexpected error while shutting down: exiting');
      process.exit(1);
    }
    shuttingDown = true;
    shutdown(error);
  };
  process.on('uncaughtException', handle);
  process.on('unhandledRejection', handle);
}
