/** Adds `by` to the shared counter `slot` and resolves to the counter's new total. */
export type AddToCounter = (slot: string, by: number) => Promise<number>;

type Waiter = (error: Error | null, count?: number) => void;

/** Counts this process added to a counter that no hit has taken yet: `next` to `last`. */
interface Lease {
  next: number;
  last: number;
}

/**
 * Counts hits on shared counters with at most one statement in flight per counter, and each
 * statement adding at least `lease` counts:
 * - hits that arrive while a statement is in flight wait and go together in the next (`count + n`);
 * - a statement adds `max(n, lease)`: the counts beyond its n hits stay with this process (a
 *   lease) and the next hits take them without a statement.
 * Each hit learns the count it would have seen alone, in order, so every count is handed out
 * once. Every count is in the shared store before its hit hears back, so a limit is never
 * exceeded across processes; what a lease can do is make other processes reach the limit while
 * this one still holds counts nobody used (at most `lease - 1` per process and counter).
 */
export function counterBatches(add: AddToCounter) {
  const inFlight = new Set<string>();
  const queued = new Map<string, Waiter[]>();
  const leases = new Map<string, Lease>();

  function takeLeased(slot: string): number | undefined {
    const lease = leases.get(slot);
    if (!lease) return undefined;
    const count = lease.next++;
    if (lease.next > lease.last) leases.delete(slot);
    return count;
  }

  function send(slot: string, waiters: Waiter[], leaseSize: number) {
    inFlight.add(slot);
    const by = Math.max(waiters.length, leaseSize);
    const settle = (error: Error | null, total?: number) => {
      if (error) {
        for (const waiter of waiters) waiter(error);
      } else {
        const first = total! - by + 1;
        for (let i = 0; i < waiters.length; i++) waiters[i]!(null, first + i);
        if (by > waiters.length) leases.set(slot, { next: first + waiters.length, last: total! });
      }
      // Hits that queued meanwhile take what was leased, in order; the rest go in the next statement.
      const next = queued.get(slot) ?? [];
      queued.delete(slot);
      let served = 0;
      while (served < next.length) {
        const count = takeLeased(slot);
        if (count === undefined) break;
        next[served++]!(null, count);
      }
      if (served < next.length) send(slot, next.slice(served), leaseSize);
      else inFlight.delete(slot);
    };
    add(slot, by).then(
      (total) => settle(null, total),
      (error: Error) => settle(error),
    );
  }

  return {
    /** Counts one hit on `slot`; `lease` is how many counts a statement adds at least. */
    hit(slot: string, lease: number, waiter: Waiter) {
      const leased = takeLeased(slot);
      if (leased !== undefined) return waiter(null, leased);
      if (!inFlight.has(slot)) return send(slot, [waiter], lease);
      const waiters = queued.get(slot);
      if (waiters) waiters.push(waiter);
      else queued.set(slot, [waiter]);
    },
    /** Forgets the unused leases of the slots `stale` names (counters of past windows are never hit again). */
    dropLeases(stale: (slot: string) => boolean) {
      for (const slot of leases.keys()) if (stale(slot)) leases.delete(slot);
    },
  };
}
