/**
 * @ipsets/testing — a fake kernel faithful to ipset 7.17, a port over it, the
 * `fake-ipset` executable, fast-check arbitraries and invariant checks.
 *
 * @packageDocumentation
 */

// --- fake kernel, port ---

// --- arbitraries, invariants ---
