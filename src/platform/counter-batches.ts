/** Adds `by` to the shared counter `slot` and resolves to the counter's new total. */
export type AddToCounter = (slot: string, by: number) => Promise<number>;

type Waiter = (error: Error | null, count?: number) => void;

/** Counts this process added to a counter that no hit has taken yet: `next` to `last`. */
interface Range {
  next: number;
  last: number;
}

/**
 * Counts hits on shared counters with at most one statement in flight per counter, and each
 * statement adding at least `lease` counts:
 * - hits that arrive while a statement is in flight wait and go together in the next (`count + n`);
 * - a statement adds `max(n, lease)`: the counts beyond its n hits stay with this process (a
 *   lease) and the next hits take them without a statement;
 * - when a hit leaves half a lease or less, the next lease is asked for at once (with no hit
 *   waiting on it), so a steady stream of hits never waits for the store: without this, every
 *   `lease` hits all the key's requests stopped behind one statement queued for a connection.
 * Each hit learns the count it would have seen alone, in order, so every count is handed out
 * once. Every count is in the shared store before its hit hears back, so a limit is never
 * exceeded across processes; what leases can do is make other processes reach the limit while
 * this one still holds counts nobody used (at most 1.5 × `lease` per process and counter).
 */
export function counterBatches(add: AddToCounter) {
  const inFlight = new Set<string>();
  const queued = new Map<string, Waiter[]>();
  // Leased counts per slot, oldest first: a lease asked for early is not contiguous with the
  // one still in use (other processes count in between).
  const leases = new Map<string, Range[]>();

  function takeLeased(slot: string): number | undefined {
    const ranges = leases.get(slot);
    const range = ranges?.[0];
    if (!range) return undefined;
    const count = range.next++;
    if (range.next > range.last) {
      ranges.shift();
      if (ranges.length === 0) leases.delete(slot);
    }
    return count;
  }

  function leasedLeft(slot: string): number {
    let left = 0;
    for (const range of leases.get(slot) ?? []) left += range.last - range.next + 1;
    return left;
  }

  function keep(slot: string, range: Range) {
    const ranges = leases.get(slot);
    if (ranges) ranges.push(range);
    else leases.set(slot, [range]);
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
        if (by > waiters.length) keep(slot, { next: first + waiters.length, last: total! });
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
      if (leased !== undefined) {
        // Ask for the next lease while this one still serves (a lease of 1 is no lease: never early).
        if (lease > 1 && !inFlight.has(slot) && leasedLeft(slot) <= lease / 2) send(slot, [], lease);
        return waiter(null, leased);
      }
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
