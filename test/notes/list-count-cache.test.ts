import { describe, expect, it } from 'vitest';
import { listCountCache } from '../../src/notes/reads/list-count-cache.ts';

// The cache's own rules, without a database (list-totals.test.ts covers it in the real app).
describe('listCountCache', () => {
  const counter = () => {
    let calls = 0;
    return { count: async () => ++calls, calls: () => calls };
  };

  it('reuses a count for the same key and version, counts again for another version', async () => {
    const cache = listCountCache();
    const { count, calls } = counter();
    expect(await cache.counted('k', 1, count)).toBe(1);
    expect(await cache.counted('k', 1, count)).toBe(1);
    expect(await cache.counted('k', 2, count)).toBe(2);
    expect(await cache.counted('other', 2, count)).toBe(3);
    expect(calls()).toBe(3);
  });

  it('lets concurrent requests share one count', async () => {
    const cache = listCountCache();
    const { count, calls } = counter();
    expect(await Promise.all([cache.counted('k', 1, count), cache.counted('k', 1, count)])).toEqual([1, 1]);
    expect(calls()).toBe(1);
  });

  it('keeps the newer entry when a request that read an older version counts', async () => {
    const cache = listCountCache();
    const { count, calls } = counter();
    await cache.counted('k', 5, count);
    expect(await cache.counted('k', 4, count)).toBe(2);
    expect(await cache.counted('k', 5, count)).toBe(1);
    expect(calls()).toBe(2);
  });

  it('does not keep a failed count', async () => {
    const cache = listCountCache();
    await expect(cache.counted('k', 1, () => Promise.reject(new Error('statement timeout')))).rejects.toThrow('statement timeout');
    expect(await cache.counted('k', 1, async () => 7)).toBe(7);
  });

  it('drops the entry stored first beyond its size', async () => {
    const cache = listCountCache(2);
    const { count, calls } = counter();
    for (const key of ['a', 'b', 'c', 'b', 'c', 'a']) await cache.counted(key, 1, count);
    expect(calls()).toBe(4);
  });
});
