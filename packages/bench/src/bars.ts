/**
 * The bars the suite judges its rows by (issue #15: "resync at a third of the save,
 * 100 bytes a member in the worst case"), in one place so the report, the chart and
 * the tests agree.
 */

/** Largest ratios (ours / the real ipset) that meet a bar, and the memory bar. */
export const BARS = Object.freeze({
  /** W1: planApply + renderRestore of 1,000,000 members against the real `ipset restore`. */
  w1: 0.05,
  /** W2: the agent's whole resync call (and parse + plan alone) against the real `ipset save`. */
  w2: 0.33,
  /** W4: applyIPSets end to end against a bare `ipset -exist restore`. */
  w4: 1.15,
  /** W5: the fake kernel against the real restore. */
  w5: 1,
  /**
   * K1: the kernel restoring the project's restore text against restoring the `ipset save`
   * text of the same sets, created with the same hashsize (within 5%).
   */
  k1: 1.05,
  /** Manager memory, heap after GC, per member (the worst case: every member its own pod). */
  bytesPerMember: 100,
});

/**
 * True when a row meets `limit`: the wall-time ratio must, and so must the CPU-time
 * ratio where both sides have one (a shared machine slows the two sides unequally, so
 * one figure alone can flatter either side). A `NaN` CPU ratio means there is none.
 */
export function meetsBar(ratio: number, cpuRatio: number, limit: number): boolean {
  return ratio <= limit && !(cpuRatio > limit);
}
