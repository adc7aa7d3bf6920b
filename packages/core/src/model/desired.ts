/** Desired state: what the owned part of a kernel should be. */
import type { CreateSpec } from './set-model.js';


/** One set as it should be in the kernel. */
export interface DesiredSet {
  /** Kernel name. */
  name: string;
  /** Human name (the prefixed name, e.g. `ns-default`) for reports. */
  label?: string;
  spec: CreateSpec;
  /** Canonical members; for lists, member kernel names in list order. */
  members: readonly string[];
  /** Most entries (hash sets only; default: the spec's, 65536 or 4294967295 for CIDR blocks). */
  maxelem?: number;
  /** Initial hash buckets, a power of two 64-1073741824 (hash sets only; default 1024). */
  hashsize?: number;
}

/** What the owned part of a kernel should be. Sets not listed here and owned by `owner` should not exist. */
export interface DesiredState {
  /** Owner prefix of kernel names (default `azure-npm-`). */
  owner: string;
  sets: readonly DesiredSet[];
}

/** Brand of {@link ValidatedDesiredState} (a type only: nothing at run time carries it). */
declare const VALIDATED: unique symbol;

/**
 * A desired state that `validateDesiredState` checked: members canonical and
 * deduplicated, everything frozen. `planReconcile` and `reconcileIPSets` plan it without
 * checking its members again. Only the validator makes one: a copy, a spread or a
 * deserialised one is an ordinary desired state and is validated like any other.
 */
export interface ValidatedDesiredState extends DesiredState {
  readonly [VALIDATED]: true;
}
