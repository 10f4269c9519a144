import { describe, expect, it } from 'vitest';
import { type AddToCounter, counterBatches } from '../../src/platform/counter-batches.ts';

// The algorithm alone, over an in-memory shared counter whose statements resolve when the test
// says so: which counts each hit gets, and how many statements they cost. (The Postgres store
// over it is tested through the app in test/notes/rate-limit.test.ts.)
function sharedCounter() {
  let total = 0;
  const statements: { by: number; settled: boolean; resolve: () => void }[] = [];
  const add: AddToCounter = (_slot, by) =>
    new Promise((resolve) => {
      const statement = {
        by,
        settled: false,
        resolve: () => {
          statement.settled = true;
          total += by;
          resolve(total);
        },
      };
      statements.push(statement);
    });
  return { add, statements, total: () => total };
}

/** Resolves every statement in flight, in order, until none is left. */
async function settleAll(counter: ReturnType<typeof sharedCounter>) {
  for (let i = 0; i < counter.statements.length; i++) {
    if (counter.statements[i]!.settled) continue;
    counter.statements[i]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function hits(batches: ReturnType<typeof counterBatches>, n: number, lease: number, slot = 'w:k') {
  return Array.from(
    { length: n },
    () => new Promise<number>((resolve, reject) => batches.hit(slot, lease, (error, count) => (error ? reject(error) : resolve(count!)))),
  );
}

describe('counterBatches', () => {
  it('hands sequential hits the counts of one lease without further statements', async () => {
    const counter = sharedCounter();
    const batches = counterBatches(counter.add);
    const counts: number[] = [];
    for (let i = 0; i < 12; i++) {
      const [pending] = hits(batches, 1, 5);
      await settleAll(counter);
      counts.push(await pending!);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(counter.statements.map((statement) => statement.by)).toEqual([5, 5, 5]);
    expect(counter.total()).toBe(15);
  });

  it('asks for the next lease while half of this one is left, so a steady stream never waits', async () => {
    const counter = sharedCounter();
    const batches = counterBatches(counter.add);
    const [first] = hits(batches, 1, 10);
    await settleAll(counter);
    expect(await first).toBe(1);
    // Answered at once (no statement settles in between): counts 2-10 from the first lease; the hit
    // that leaves 5 or fewer sends the next statement, with no hit waiting on it.
    const answeredAtOnce = (): number | undefined => {
      let count: number | undefined;
      batches.hit('w:k', 10, (_error, value) => {
        count = value;
      });
      return count;
    };
    const stream = Array.from({ length: 9 }, answeredAtOnce);
    expect(stream).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counter.statements.map((statement) => statement.by)).toEqual([10, 10]);
    expect(counter.statements[1]!.settled).toBe(false);
    // The lease is spent before the early statement answers: the next hit waits for it, then gets 11.
    const [waiting] = hits(batches, 1, 10);
    await settleAll(counter);
    expect(await waiting).toBe(11);
    expect(Array.from({ length: 4 }, answeredAtOnce)).toEqual([12, 13, 14, 15]);
    // Never more than one statement in flight per counter, and at most 1.5 leases unused (15 taken:
    // 5 left of the second lease, and the third asked for early).
    expect(counter.statements.map((statement) => statement.by)).toEqual([10, 10, 10]);
    await settleAll(counter);
    expect(counter.total() - 15).toBeLessThanOrEqual(15);
  });

  it('gives a burst distinct counts in order: the lease first, the rest in one statement', async () => {
    const counter = sharedCounter();
    const batches = counterBatches(counter.add);
    const pending = hits(batches, 30, 5);
    await settleAll(counter);
    expect(await Promise.all(pending)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // 1 waiter + 4 leased, then the 25 that queued meanwhile less the 4 leased ones.
    expect(counter.statements.map((statement) => statement.by)).toEqual([5, 25]);
    expect(counter.total()).toBe(30);
  });

  it('without a lease (1) counts every hit in the store, one statement per burst', async () => {
    const counter = sharedCounter();
    const batches = counterBatches(counter.add);
    const pending = hits(batches, 10, 1);
    await settleAll(counter);
    expect(await Promise.all(pending)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counter.statements.map((statement) => statement.by)).toEqual([1, 9]);
  });

  it('never hands out one count twice across processes sharing the store', async () => {
    const counter = sharedCounter();
    const processes = [counterBatches(counter.add), counterBatches(counter.add)];
    const pending: Promise<number>[] = [];
    for (let round = 0; round < 20; round++) {
      pending.push(...hits(processes[round % 2]!, 1 + (round % 3), 4));
      if (round % 4 === 3) await settleAll(counter);
    }
    await settleAll(counter);
    const counts = await Promise.all(pending);
    expect(new Set(counts).size).toBe(counts.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(counter.total());
  });

  it('fails the hits of a failed statement, keeps no lease from it, and sends the queued ones anew', async () => {
    let calls = 0;
    let total = 0;
    const batches = counterBatches(async (_slot, by) => {
      calls++;
      if (calls === 1) throw new Error('database down');
      total += by;
      return total;
    });
    const [failed, ...queued] = hits(batches, 3, 5);
    await expect(failed).rejects.toThrow('database down');
    expect(await Promise.all(queued)).toEqual([1, 2]);
    const [next] = hits(batches, 1, 5);
    expect(await next).toBe(3);
    // The third statement is the next lease, asked for early once 3 left 2 of the lease.
    expect(calls).toBe(3);
  });

  it('forgets the leases of stale slots', async () => {
    const counter = sharedCounter();
    const batches = counterBatches(counter.add);
    const [first] = hits(batches, 1, 5, '1:k');
    await settleAll(counter);
    expect(await first).toBe(1);
    batches.dropLeases((slot) => slot.startsWith('1:'));
    const [second] = hits(batches, 1, 5, '1:k');
    await settleAll(counter);
    expect(await second).toBe(6);
    expect(counter.statements).toHaveLength(2);
  });
});
