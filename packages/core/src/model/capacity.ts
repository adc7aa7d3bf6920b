/**
 * Per-set capacity: `maxelem` (the most entries a hash set takes; one more add is
 * `Hash is full, cannot add more elements`) and `hashsize` (the initial number of
 * hash buckets), as ipset names them. Configurable per set type (manager) and per
 * set (desired state); when neither is given the create line is the one NPM always
 * wrote (`-N name --exist nethash`), so the kernel's defaults apply: `maxelem 65536`,
 * `hashsize 1024`, and `maxelem 4294967295` for CIDR-block sets.
 *
 * Limits, measured on ipset 7.17 (`echo '-N t --exist nethash maxelem …' | ipset restore`):
 *
 * - `maxelem` takes 0-4294967295 (`Syntax error: '4294967296' is out of range
 *   0-4294967295`). 0 is accepted and makes a set that can hold nothing, so it is
 *   refused here.
 * - `hashsize` is rounded up to a power of two of at least 64 (`hashsize 100` is saved as
 *   `hashsize 128`, `hashsize 0` as `64`); 2147483648 and more fail with `Cannot allocate
 *   memory`. Only powers of two from 64 to 1073741824 are accepted here, so that what the
 *   kernel prints is what was asked for.
 * - A list:set has neither (`Unknown argument: \`maxelem'`, exit 2): capacity on a list
 *   is refused.
 * - `-N name --exist` of an existing set with another `maxelem` fails (`set with the
 *   same name already exists`); with another `hashsize` it succeeds and changes
 *   nothing: the kernel does not compare hashsize, and grows it by itself as the set fills.
 */
import { IpsetsError, quote } from '../errors.js';
import type { IpsetsErrorCode } from '../errors.js';
import { SPEC_INFO } from './set-types.js';
import type { CreateSpec } from '../types.js';

/** `maxelem` and `hashsize` of one set; an absent field is the default. */
export interface SetCapacity {
  /** Most entries (1-4294967295). */
  readonly maxelem?: number;
  /** Initial hash buckets: a power of two, 64-1073741824. */
  readonly hashsize?: number;
}

/** The kernel's `maxelem` when a create line names none. */
export const DEFAULT_MAXELEM = 65536;
/** The kernel's `hashsize` when a create line names none. */
export const DEFAULT_HASHSIZE = 1024;
/** The largest `maxelem` the kernel takes (a u32). */
export const MAX_MAXELEM = 4294967295;
/** The smallest `hashsize` the kernel keeps (smaller values are raised to it). */
export const MIN_HASHSIZE = 64;
/** The largest `hashsize` accepted here (2^30; 2^31 fails in the kernel). */
export const MAX_HASHSIZE = 1073741824;


/** The maxelem a create spec implies without capacity options. */
function specMaxelem(spec: CreateSpec): number {
  const m = / maxelem (\d+)$/.exec(spec);
  return m === null ? DEFAULT_MAXELEM : Number(m[1]);
}

/**
 * The `hashsize` a create line asks for when the plan fills the new set with `members`
 * members and nobody asked for a hashsize; `undefined` (the kernel's default) for up to
 * 3 × 1024 members. The kernel starts a hash set at 1024 buckets and doubles them as it
 * fills, rehashing every entry each time: a restore of 100 hash:net sets × 10,000
 * members took 7.4–8.2 s from `hashsize 1024` and 4.4–5.1 s from the 4096 the kernel ends
 * at (ipset 7.17). The kernel never compares hashsize (docs/ipset-semantics.md §2.6), so a
 * later reconcile sees nothing to change. One bucket per three members keeps the
 * buckets well under the kernel's 12 entries, so it does not double again.
 */
export function initialHashsize(members: number): number | undefined {
  if (!(members > 3 * DEFAULT_HASHSIZE)) return undefined;
  let size = DEFAULT_HASHSIZE;
  while (size * 3 < members && size < MAX_HASHSIZE) size *= 2;
  return size;
}

/** `capacity` with the {@link initialHashsize} for `members` when it asks for no hashsize. */
export function withInitialHashsize(capacity: SetCapacity, members: number): SetCapacity {
  if (capacity.hashsize !== undefined) return capacity;
  const hashsize = initialHashsize(members);
  return hashsize === undefined ? capacity : { ...capacity, hashsize };
}

/** `maxelem` and `hashsize` that a set created with `spec` and `capacity` has. */
export function effectiveCapacity(spec: CreateSpec, capacity: SetCapacity = {}): { maxelem: number; hashsize: number } {
  return { maxelem: capacity.maxelem ?? specMaxelem(spec), hashsize: capacity.hashsize ?? DEFAULT_HASHSIZE };
}

/**
 * Checks a capacity for a set of `spec` and returns it with only the fields given.
 * `where` names it in messages (`desired set "azure-npm-…"`, `capacity of set type "namespace"`).
 *
 * @throws IpsetsError `code` (default `INVALID_INPUT`) for a field that is not an
 *   integer in range, a hashsize that is not a power of two, an unknown field, or any
 *   capacity on a list:set.
 */
export function validateCapacity(
  capacity: unknown,
  spec: CreateSpec,
  where: string,
  code: IpsetsErrorCode = 'INVALID_INPUT',
): SetCapacity {
  if (capacity === undefined) return {};
  const bad = (message: string, details: Record<string, unknown>): IpsetsError =>
    new IpsetsError(code, message, { details: { where, ...details } });
  if (capacity === null || typeof capacity !== 'object' || Array.isArray(capacity)) {
    throw bad(`Invalid capacity ${quote(capacity)} for ${where}; expected an object with maxelem and/or hashsize.`, { capacity });
  }
  const { maxelem, hashsize, ...rest } = capacity as Record<string, unknown>;
  const unknown = Object.keys(rest).filter((k) => rest[k] !== undefined);
  if (unknown.length > 0) {
    throw bad(`Unknown capacity option ${quote(unknown[0])} for ${where}; expected maxelem or hashsize.`, { option: unknown[0] });
  }
  const out: { maxelem?: number; hashsize?: number } = {};
  if (maxelem === undefined && hashsize === undefined) return out;
  if (SPEC_INFO[spec].list) {
    throw bad(
      `${where} is a list:set, which has no maxelem or hashsize (ipset refuses them on a list); remove them.`,
      { maxelem, hashsize },
    );
  }
  if (maxelem !== undefined) {
    if (typeof maxelem !== 'number' || !Number.isInteger(maxelem) || maxelem < 1 || maxelem > MAX_MAXELEM) {
      throw bad(`Invalid maxelem ${quote(maxelem)} for ${where}; expected an integer from 1 to ${MAX_MAXELEM}.`, { maxelem });
    }
    out.maxelem = maxelem;
  }
  if (hashsize !== undefined) {
    if (
      typeof hashsize !== 'number' ||
      !Number.isInteger(hashsize) ||
      hashsize < MIN_HASHSIZE ||
      hashsize > MAX_HASHSIZE ||
      (hashsize & (hashsize - 1)) !== 0
    ) {
      throw bad(
        `Invalid hashsize ${quote(hashsize)} for ${where}; expected a power of two from ${MIN_HASHSIZE} to ${MAX_HASHSIZE} (the kernel rounds other values up, so they would never match what it reports).`,
        { hashsize },
      );
    }
    out.hashsize = hashsize;
  }
  return out;
}

/**
 * The create line's tail after `--exist`: the spec itself without capacity (the line
 * NPM always wrote), else the spec's type with `maxelem` and `hashsize`, e.g.
 * `nethash maxelem 131072 hashsize 2048`. A spec's own maxelem
 * (`nethash maxelem 4294967295`) gives way to the capacity's.
 */
export function createSpecText(spec: CreateSpec, capacity: SetCapacity = {}): string {
  if (capacity.maxelem === undefined && capacity.hashsize === undefined) return spec;
  const base = spec.replace(/ maxelem \d+$/, '');
  const maxelem = capacity.maxelem ?? (base === spec ? undefined : specMaxelem(spec));
  return `${base}${maxelem === undefined ? '' : ` maxelem ${maxelem}`}${capacity.hashsize === undefined ? '' : ` hashsize ${capacity.hashsize}`}`;
}
