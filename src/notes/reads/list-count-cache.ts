/**
 * The note list's counts, per process, each kept with the clinic's notes-list version it was counted
 * at (note_list_versions, bumped by triggers in the transaction of every write to the clinic's
 * notes: note-list-version.sql). A count is reused only while the version read for the request is
 * the one it was stored under, so a total is never staler than the page next to it: there is no
 * TTL, and any change to a note of the clinic makes its next list count again.
 *
 * Why that is safe: the caller reads the version before it counts (list-notes.ts), so a count
 * reflects the notes at that version or a later one, never an earlier one; and a version never
 * comes back once it has changed. Concurrent requests for the same key and version share one count.
 * Bounded: beyond `maxEntries` the entry stored first goes first.
 */
export function listCountCache(maxEntries = 1_000) {
  const entries = new Map<string, { version: number; counted: Promise<number> }>();
  return {
    /** The count stored for `key` at `version`, or `count()`'s, then stored under `version`. */
    counted(key: string, version: number, count: () => Promise<number>): Promise<number> {
      const entry = entries.get(key);
      if (entry?.version === version) return entry.counted;
      // A request that read its version before a newer one was stored: count, keep the newer entry.
      if (entry && entry.version > version) return count();
      const counted = count();
      entries.delete(key);
      entries.set(key, { version, counted });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      // A failed count is not kept: the next request counts again.
      counted.catch(() => {
        if (entries.get(key)?.counted === counted) entries.delete(key);
      });
      return counted;
    },
  };
}
export type ListCountCache = ReturnType<typeof listCountCache>;
