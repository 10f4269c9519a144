/**
 * `promise`, or an ETIMEDOUT error once `ms` have passed without an answer. The verdict is taken
 * one turn of the event loop late, on purpose: when the process itself stalled (CPU starvation, a
 * long GC), the answer may have arrived during the stall and be waiting in its socket, and timers
 * run before I/O callbacks. Without that turn, a late timer would call a database that answered in
 * time unreachable, and every request would get a 503 it did not deserve.
 */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(Object.assign(new Error(message), { code: 'ETIMEDOUT' }));
      });
    }, ms);
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
