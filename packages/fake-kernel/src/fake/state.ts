/**
 * The kernel's set table: slots (destroy frees one, create takes the lowest free),
 * names, references (list:set memberships and simulated iptables rules) and the
 * set-level commands create/destroy/flush/rename/swap with their kernel errors.
 */
import type { SetTypeName } from './elements.js';
import { MSG } from './messages.js';
import { HashContent, ListContent, type SetContent, type SetLookup } from './sets.js';

/** One slot of the kernel's set array. Name and references stay with the slot on swap. */
export class Slot {
  listRefs = 0;
  iptRefs = 0;
  constructor(
    public name: string,
    public content: SetContent,
  ) {}

  /** `References:` as `ipset list` prints it. */
  get references(): number {
    return this.listRefs + this.iptRefs;
  }
}

/** The real kernel's limit (IPSET_INVALID_ID = 65535, array grown in steps of 64). */
export const KERNEL_MAX_SETS = 65472;

/** The set table of one network namespace. */
export class KernelState implements SetLookup {
  readonly slots: (Slot | undefined)[] = [];
  readonly byName = new Map<string, Slot>();
  private firstFree = 0;
  /** Creates so far (feeds the deterministic initval stand-in). */
  seq = 0;

  constructor(readonly maxSets: number = KERNEL_MAX_SETS) {}

  /** Recomputes the lowest free slot (after loading a snapshot). */
  resetFreeSlot(): void {
    this.firstFree = 0;
  }

  slot(name: string): Slot | undefined {
    return this.byName.get(name);
  }

  get count(): number {
    return this.byName.size;
  }

  /** Sets in output order: every non-list:set in slot order, then every list:set (docs/ipset-semantics.md §5.3). */
  ordered(): Slot[] {
    const hash: Slot[] = [];
    const lists: Slot[] = [];
    for (const s of this.slots) {
      if (s === undefined) continue;
      (s.content.kind === 'list' ? lists : hash).push(s);
    }
    return hash.concat(lists);
  }

  /** Kernel create; `exist` accepts an existing set with the same type and same_set parameters. */
  create(name: string, content: SetContent, exist: boolean): string | null {
    const clash = this.byName.get(name);
    if (clash !== undefined) return exist && sameSet(clash.content, content) ? null : MSG.setExists;
    if (this.count >= this.maxSets) return MSG.maxSets;
    while (this.slots[this.firstFree] !== undefined) this.firstFree++;
    const slot = new Slot(name, content);
    this.slots[this.firstFree] = slot;
    this.byName.set(name, slot);
    this.firstFree++;
    this.seq++;
    return null;
  }

  /** Kernel destroy of one set (`name`) or of all sets. */
  destroy(name: string | undefined, exist: boolean): string | null {
    if (name === undefined) {
      for (const s of this.byName.values()) if (s.references > 0) return MSG.destroyInUse;
      for (const s of this.byName.values()) if (s.content.kind === 'list') s.content.flush(this);
      this.slots.length = 0;
      this.byName.clear();
      this.firstFree = 0;
      return null;
    }
    const s = this.byName.get(name);
    if (s === undefined) return exist ? null : MSG.setMissing;
    if (s.references > 0) return MSG.destroyInUse;
    if (s.content.kind === 'list') s.content.flush(this);
    const idx = this.slots.indexOf(s);
    this.slots[idx] = undefined;
    while (this.slots.length > 0 && this.slots[this.slots.length - 1] === undefined) this.slots.length--;
    if (idx < this.firstFree) this.firstFree = idx;
    this.byName.delete(name);
    return null;
  }

  /** Kernel flush of one set or of all sets. */
  flush(name: string | undefined): string | null {
    if (name === undefined) {
      for (const s of this.ordered()) this.flushContent(s.content);
      return null;
    }
    const s = this.byName.get(name);
    if (s === undefined) return MSG.setMissing;
    this.flushContent(s.content);
    return null;
  }

  private flushContent(c: SetContent): void {
    if (c.kind === 'list') c.flush(this);
    else c.flush();
  }

  rename(from: string, to: string): string | null {
    const s = this.byName.get(from);
    if (s === undefined) return MSG.setMissing;
    if (s.references > 0) return MSG.renameInUse;
    if (this.byName.has(to)) return MSG.renameExists;
    this.byName.delete(from);
    s.name = to;
    this.byName.set(to, s);
    return null;
  }

  swap(a: string, b: string): string | null {
    const x = this.byName.get(a);
    if (x === undefined) return MSG.setMissing;
    const y = this.byName.get(b);
    if (y === undefined) return MSG.swapSecondMissing;
    if (x.content.type !== y.content.type || familyOf(x.content) !== familyOf(y.content)) return MSG.swapTypeMismatch;
    const c = x.content;
    x.content = y.content;
    y.content = c;
    return null;
  }
}

/** Address family of a set's contents (list:set has none). */
export function familyOf(c: SetContent): 4 | 6 | 0 {
  return c.kind === 'list' ? 0 : c.opts.family;
}

/** The kernel's same_set(): hashsize and family are not compared (docs/ipset-semantics.md §2.6). */
function sameSet(a: SetContent, b: SetContent): boolean {
  if (a.type !== b.type) return false;
  if (a.kind === 'list' || b.kind === 'list') {
    const x = a.opts as ListContent['opts'];
    const y = b.opts as ListContent['opts'];
    return x.size === y.size && x.timeout === y.timeout && x.counters === y.counters && x.comment === y.comment && x.skbinfo === y.skbinfo;
  }
  const x = a.opts;
  const y = b.opts;
  const nm = (c: HashContent): number =>
    c.opts.netmask < 0 || c.opts.netmask === (c.opts.family === 4 ? 32 : 128) ? -1 : c.opts.netmask;
  return (
    x.maxelem === y.maxelem &&
    x.timeout === y.timeout &&
    nm(a) === nm(b) &&
    x.counters === y.counters &&
    x.comment === y.comment &&
    x.skbinfo === y.skbinfo
  );
}

/** The type names of the fake's contents. */
export type { SetTypeName };
