// A few requests at a time over a list, stopping at the first that fails for good: the pieces of
// one transcription (long audio's chunks, a live note's parts, one part's requests) all go out this
// way, so that a failure does not leave the others running against a note already failed.

/**
 * Runs `task` over `items`, at most `concurrency` at once, in order of the list. The first error
 * aborts the signal the other tasks got (what they finished is kept by them) and is thrown, after
 * `describe` has said which item it came from; an abort of `signal` ends the run with its reason.
 */
export async function eachAtMost<T>(
  items: readonly T[],
  concurrency: number,
  signal: AbortSignal,
  task: (item: T, signal: AbortSignal) => Promise<void>,
  describe: (error: unknown, item: T) => unknown = (error) => error,
): Promise<void> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  let failure: { error: unknown } | undefined;
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined && !both.aborted; item = queue.shift()) {
      try {
        await task(item, both);
      } catch (error) {
        failure ??= { error: describe(error, item) };
        stop.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure) throw failure.error;
  signal.throwIfAborted();
}
