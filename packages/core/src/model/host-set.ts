/**
 * A desired hash:net set of plain IPv4 hosts held as their addresses.
 * `IPSetManager.desiredState` hands out a set of plain hosts as one: it reads as any
 * desired set (`members` is an own enumerable property, so spreads and JSON see it),
 * but its member strings are made only when `members` is first read, and reconcile
 * planning reads the addresses instead ({@link HostSet.hostsOf}), so a resync of a
 * manager never makes a string per member.
 */
import { formatIPv4 } from './ipv4-host.js';
import type { DesiredSet } from '../vocabulary/desired.js';
import type { CreateSpec } from '../vocabulary/set-model.js';

/** The fields of a {@link HostSet} besides its members. */
export interface HostSetFields {
  readonly name: string;
  readonly label?: string;
  readonly spec: CreateSpec;
  readonly maxelem?: number;
  readonly hashsize?: number;
}

/** A frozen desired set of IPv4 hosts (see the module documentation). */
export class HostSet implements DesiredSet {
  declare readonly name: string;
  declare readonly label?: string;
  declare readonly spec: CreateSpec;
  declare readonly members: readonly string[];
  declare readonly maxelem?: number;
  declare readonly hashsize?: number;
  readonly #hosts: Uint32Array;
  #members: readonly string[] | undefined = undefined;

  /**
   * @param fields the set's fields; `spec` must be a hash:net spec of family inet.
   * @param hosts the members' addresses (unsigned 32-bit, distinct), in member order; the set keeps the array, which no one may change.
   */
  constructor(fields: HostSetFields, hosts: Uint32Array) {
    this.#hosts = hosts;
    // The fields in the order of a plain desired set's, only those given.
    this.name = fields.name;
    if (fields.label !== undefined) this.label = fields.label;
    this.spec = fields.spec;
    Object.defineProperty(this, 'members', { enumerable: true, get: () => (this.#members ??= Object.freeze(Array.from(this.#hosts, formatIPv4))) });
    if (fields.maxelem !== undefined) this.maxelem = fields.maxelem;
    if (fields.hashsize !== undefined) this.hashsize = fields.hashsize;
    Object.freeze(this);
  }

  /** The addresses of a set made as a HostSet (read-only by contract), else `undefined`. */
  static hostsOf(set: unknown): Uint32Array | undefined {
    return typeof set === 'object' && set !== null && #hosts in set ? (set as HostSet).#hosts : undefined;
  }
}

/**
 * The number of members of a desired set, without making the member strings of a set
 * that keeps its IPv4 hosts as numbers (as `IPSetManager.desiredState` and
 * `buildDesiredState` hand out a set of plain hosts).
 */
export function desiredMemberCount(set: DesiredSet): number {
  return HostSet.hostsOf(set)?.length ?? set.members.length;
}
