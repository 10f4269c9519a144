/** Adds `by` to the shared counter `slot` and resolves to the counter's new total. */
export type AddToCounter = (slot: string, by: number) => Promise<number>;

type Waiter = (error: Error | null, count?: number) => void;

/**
 * Counts hits on shared counters with at most one statement in flight per counter: hits that arrive
 * while one is in flight wait and go together in the next (`count + n`), and each learns the count
 * it would have seen alone (the batch's total minus the hits after it). Every hit is still counted
 * in the shared store before its caller hears back, so a limit stays exact across processes; a burst
 * of N hits on one key costs about two statements instead of N, which otherwise would queue one by
 * one on the same row lock anyway.
 */
export function counterBatches(add: AddToCounter) {
  const inFlight = new Set<string>();
  const queued = new Map<string, Waiter[]>();

  function send(slot: string, waiters: Waiter[]) {
    inFlight.add(slot);
    add(slot, waiters.length)
      .then(
        (total) => {
          for (const [i, waiter] of waiters.entries()) waiter(null, total - waiters.length + 1 + i);
        },
        (error: Error) => {
          for (const waiter of waiters) waiter(error);
        },
      )
      .finally(() => {
        const next = queued.get(slot);
        if (next) {
          queued.delete(slot);
          send(slot, next);
        } else {
          inFlight.delete(slot);
        }
      });
  }

  return function hit(slot: string, waiter: Waiter) {
    if (!inFlight.has(slot)) return send(slot, [waiter]);
    const waiters = queued.get(slot);
    if (waiters) waiters.push(waiter);
    else queued.set(slot, [waiter]);
  };
}
