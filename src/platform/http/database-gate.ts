import { DatabaseDownError } from '../db/unavailable.ts';
import type { AppInstance } from './types.ts';

/**
 * Every route of the calling scope needs the database: while it is known to be down
 * (DatabaseAvailability), a request is answered 503 + Retry-After as it arrives, before its
 * credentials, its rate limit or its body are looked at. Without this gate a request reached the
 * database only after the work it does first — an upload read its whole body, probed the audio and
 * stored it before its transaction was refused — and a slow body or a busy machine made its 503
 * late. docs/security.md, "Availability under database faults".
 */
export function refuseWhileDatabaseDown(app: AppInstance): void {
  const { availability } = app.vetflow;
  // A callback hook on the path of every request: an async hook costs a promise each.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (availability.isDown) return done(new DatabaseDownError());
    done();
  });
}
