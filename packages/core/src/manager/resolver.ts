/**
 * How the manager reads a set's metadata: validated, named (prefixed name, kernel
 * name), checked against the set already cached under that name, and — for a set a
 * call may create — its kernel name claimed tentatively. The last metadata checked is
 * kept: a caller adding members one at a time names the same set again and again (a
 * file's set, an agent's label), and the check and the name depend on the name, type
 * and family alone.
 */
import { kernelName as computeKernelName } from '../model/naming.js';
import { inet6SiblingName, prefixedNameOf, setTypeInfo, validateSetMetadata } from '../model/set-types.js';
import type { SetTypeInfo } from '../model/set-types.js';
import { checkSameType } from './arguments.js';
import type { Resolved } from './arguments.js';
import type { KernelNameClaims } from './kernel-names.js';
import type { IPSet } from './set-record.js';
import type { NamingScheme, SetMetadata, SetType } from '../types.js';

/** Resolves set metadata against the manager's cached sets (see the module documentation). */
export class SetResolver {
  /** The last metadata {@link named} checked: its fields, type info and prefixed name. */
  private namedName: string | undefined = undefined;
  private namedType: SetType | undefined = undefined;
  private namedFamily: SetMetadata['family'] = undefined;
  private namedInfo: SetTypeInfo | undefined = undefined;
  /** The prefixed name of the metadata {@link named} checked last. */
  namedPrefixed = '';

  constructor(
    private readonly sets: ReadonlyMap<string, IPSet>,
    private readonly claims: KernelNameClaims,
    private readonly owner: string,
    private readonly scheme: NamingScheme,
  ) {}

  /** Validates `meta` and returns its type info; its prefixed name is left in {@link namedPrefixed}. */
  named(meta: SetMetadata): SetTypeInfo {
    const last = this.namedInfo;
    if (last !== undefined && meta !== null && typeof meta === 'object' && meta.name === this.namedName && meta.type === this.namedType && meta.family === this.namedFamily) {
      return last;
    }
    validateSetMetadata(meta);
    const info = setTypeInfo(meta.type, meta.family);
    this.namedPrefixed = prefixedNameOf(info, meta.name);
    this.namedName = meta.name;
    this.namedType = meta.type;
    this.namedFamily = meta.family;
    this.namedInfo = info;
    return info;
  }

  /** Validates `meta` for lookup only (no creation): a known type that fits an existing set. */
  lookup(meta: SetMetadata): Resolved {
    const info = this.named(meta);
    const prefixed = this.namedPrefixed;
    const existing = this.sets.get(prefixed);
    if (existing !== undefined) checkSameType(existing, meta);
    return { meta, prefixed, info, kernelName: existing?.kernelName ?? '' };
  }

  /**
   * Validates `meta` for use with creation: also claims (tentatively, in `claims`) the kernel name of a new set.
   *
   * @throws IpsetsError `KERNEL_NAME_COLLISION` and the metadata's errors.
   */
  resolve(meta: SetMetadata, claims: Map<string, string>): Resolved {
    const info = this.named(meta);
    const prefixed = this.namedPrefixed;
    const existing = this.sets.get(prefixed);
    if (existing !== undefined) {
      checkSameType(existing, meta);
      return { meta, prefixed, info, kernelName: existing.kernelName };
    }
    const kernelName = computeKernelName(prefixed, { owner: this.owner, scheme: this.scheme });
    this.claims.check(prefixed, kernelName, this.scheme, claims);
    return { meta, prefixed, info, kernelName };
  }

  /**
   * A list member as the list holds it: a family-less member that names a set declared
   * with one family (and no set of the other family) is that kernel set alone, so no
   * empty sibling of the other family is made just to be put into the list.
   */
  singleFamily(meta: SetMetadata): SetMetadata {
    if (meta === null || typeof meta !== 'object' || meta.family !== undefined) return meta;
    const info = this.named(meta);
    if (info.kind !== 'set') return meta;
    const prefixed = this.namedPrefixed;
    const inet = this.sets.get(prefixed);
    if (inet !== undefined) return inet.declaredFamily === 'inet' ? { ...meta, family: 'inet' } : meta;
    return this.sets.get(inet6SiblingName(prefixed))?.declaredFamily === 'inet6' ? { ...meta, family: 'inet6' } : meta;
  }
}
