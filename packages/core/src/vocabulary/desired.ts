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

