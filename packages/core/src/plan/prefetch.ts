/**
 * The prefetch trick of reconcile planning: touch a block of member strings before
 * parsing them, so that their cache misses overlap instead of coming one by one.
 */

/** Desired members read per block: see {@link touchStrings}. */
export const PREFETCH = 64;

/**
 * Reads the length of each string in `members[from, to)` before they are parsed. The
 * manager's member strings lie all over the heap: parsed one after the other each
 * waits for its own cache miss, while these independent reads wait for many at once
 * (measured: the first read of a million desired members 215 → 125 ms). Returns
 * `sum` plus the lengths read (modulo 2^16), for the caller to keep.
 */
export function touchStrings(members: readonly unknown[], from: number, to: number, sum: number): number {
  for (let i = from; i < to; i++) {
    const m = members[i];
    if (typeof m === 'string') sum += m.length;
  }
  return sum & 0xffff;
}
