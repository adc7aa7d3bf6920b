/**
 * The members of one of the manager's hash sets, in insertion order, each with its pod
 * key. IPv4 host entries (the bulk of every real state) are kept as 32-bit numbers in
 * typed arrays; every other entry (a CIDR, an ip,port member, an IPv6 address) keeps its
 * string. A member's text is made only when someone asks for it: the apply planner
 * hands a set of plain hosts to the renderer as numbers ({@link HashMembers.plainHosts}),
 * which writes their text from them.
 *
 * Each member has a slot, in insertion order; a removed member's slot is dead until the
 * slots are compacted (when the dead outnumber the live), so the order is a `Map`'s:
 * a member removed and added again goes to the end, and switching ` nomatch` keeps its
 * place. Hosts are found through an open-addressing table of slot numbers (linear
 * probing, deletion by backward shift, so it never fills with tombstones); other
 * entries through a `Map` of their text.
 */
import { formatIPv4, hostValueIn, NOMATCH, NOMATCH_FLAG } from '../model/ipv4-host.js';

/** Slot kinds (a byte per slot): dead, an IPv4 host, a text entry; {@link NOMATCH_BIT} added for ` nomatch`. */
const DEAD = 0;
const HOST = 1;
const TEXT = 2;
const NOMATCH_BIT = 4;
const KIND_MASK = 3;

/** Slots a table starts with. */
const FIRST_SLOTS = 8;

/** The fewest dead slots a compaction waits for (tests lower it to compact small tables). */
export const MIN_COMPACT = 64;

/** The address of an entry (a member without ` nomatch`) that is a canonical IPv4 host, else -1. */
function hostOf(entry: string): number {
  const n = entry.length;
  if (n < 7 || n > 15) return -1;
  const v = hostValueIn(entry, 0, n);
  return v >= NOMATCH_FLAG ? -1 : v;
}

/** The members of one hash set (see the module documentation). */
export class HashMembers {
  /** Per slot: the host's address (host slots). */
  private hosts = new Uint32Array(FIRST_SLOTS);
  /** Per slot: its kind. */
  private kinds = new Uint8Array(FIRST_SLOTS);
  /** Per slot: the pod key (`''` once dead). */
  private pods: string[] = [];
  /** Text slots: their entry, by slot. */
  private texts: Map<number, string> | undefined = undefined;
  /** Text entries: their slot, by entry. */
  private textSlots: Map<string, number> | undefined = undefined;
  /** Host slots by address: `slot + 1`, 0 empty (a power of two long, at most half full). */
  private index = new Int32Array(2 * FIRST_SLOTS);
  /** Slots used (live and dead). */
  private used = 0;
  /** Live members, and live host members. */
  private live = 0;
  private liveHosts = 0;
  /** Members with ` nomatch`. */
  private flagged = 0;

  /** @param minCompact the fewest dead slots a compaction waits for. */
  constructor(private readonly minCompact: number = MIN_COMPACT) {}

  /** Live members. */
  get size(): number {
    return this.live;
  }

  /** Live members kept as text (the ones a string pool may hold). */
  get textCount(): number {
    return this.live - this.liveHosts;
  }

  /** The slot of `entry` (a canonical member without ` nomatch`), or -1 when it is not a member. */
  slotOf(entry: string): number {
    const host = hostOf(entry);
    if (host >= 0) return this.hostSlot(host);
    return this.textSlots?.get(entry) ?? -1;
  }

  /**
   * Adds `entry` (a canonical member without ` nomatch`, not a member yet) at the end,
   * with ` nomatch` when `nomatch`, owned by `pod`. `keep` gives the string to hold for
   * a text entry (an interned copy); a host keeps no string. Returns true for a text entry.
   */
  add(entry: string, nomatch: boolean, pod: string, keep: (text: string) => string): boolean {
    if (this.used === this.kinds.length) this.makeRoom();
    const slot = this.used++;
    const host = hostOf(entry);
    const flag = nomatch ? NOMATCH_BIT : 0;
    this.pods.push(pod);
    this.live++;
    if (nomatch) this.flagged++;
    if (host >= 0) {
      this.hosts[slot] = host;
      this.kinds[slot] = HOST | flag;
      this.liveHosts++;
      if (2 * this.liveHosts > this.index.length) this.reindex(2 * this.index.length);
      else this.indexHost(slot);
      return false;
    }
    const text = keep(entry);
    this.kinds[slot] = TEXT | flag;
    (this.texts ??= new Map()).set(slot, text);
    (this.textSlots ??= new Map()).set(text, slot);
    return true;
  }

  /** Removes the member in `slot`; returns true when it was kept as text. */
  remove(slot: number): boolean {
    const kind = this.kinds[slot]!;
    const text = (kind & KIND_MASK) === TEXT;
    if (text) {
      this.textSlots!.delete(this.texts!.get(slot)!);
      this.texts!.delete(slot);
    } else {
      this.unindexHost(slot);
      this.liveHosts--;
    }
    if ((kind & NOMATCH_BIT) !== 0) this.flagged--;
    this.kinds[slot] = DEAD;
    this.pods[slot] = '';
    this.live--;
    return text;
  }

  /** The pod key of the member in `slot`. */
  podAt(slot: number): string {
    return this.pods[slot]!;
  }

  setPod(slot: number, pod: string): void {
    this.pods[slot] = pod;
  }

  /** True when the member in `slot` carries ` nomatch`. */
  nomatchAt(slot: number): boolean {
    return (this.kinds[slot]! & NOMATCH_BIT) !== 0;
  }

  setNomatch(slot: number, nomatch: boolean): void {
    const kind = this.kinds[slot]!;
    if (((kind & NOMATCH_BIT) !== 0) === nomatch) return;
    this.kinds[slot] = nomatch ? kind | NOMATCH_BIT : kind & KIND_MASK;
    this.flagged += nomatch ? 1 : -1;
  }

  /** The canonical member in live `slot`, ` nomatch` included. */
  memberAt(slot: number): string {
    const kind = this.kinds[slot]!;
    const entry = (kind & KIND_MASK) === HOST ? formatIPv4(this.hosts[slot]!) : this.texts!.get(slot)!;
    return (kind & NOMATCH_BIT) !== 0 ? entry + NOMATCH : entry;
  }

  /** Calls `fn` with every member (` nomatch` included) and its pod key, in insertion order. */
  forEach(fn: (member: string, pod: string) => void): void {
    const { kinds, pods } = this;
    for (let slot = 0, n = this.used; slot < n; slot++) if (kinds[slot] !== DEAD) fn(this.memberAt(slot), pods[slot]!);
  }

  /** Calls `fn` with every member, ` nomatch` included, in insertion order. */
  forEachMember(fn: (member: string) => void): void {
    const kinds = this.kinds;
    for (let slot = 0, n = this.used; slot < n; slot++) if (kinds[slot] !== DEAD) fn(this.memberAt(slot));
  }

  /** Calls `fn` with every string a string pool may hold: the text entries (`member`) or the pod keys (`podKey`). */
  forEachPooled(kind: 'member' | 'podKey', fn: (value: string) => void): void {
    if (kind === 'member') {
      for (const text of this.texts?.values() ?? []) fn(text);
      return;
    }
    const { kinds, pods } = this;
    for (let slot = 0, n = this.used; slot < n; slot++) if (kinds[slot] !== DEAD) fn(pods[slot]!);
  }

  /**
   * The members' addresses in insertion order when every member is an IPv4 host without
   * ` nomatch` (a fresh array); `undefined` otherwise.
   */
  plainHosts(): Uint32Array | undefined {
    if (this.liveHosts !== this.live || this.flagged !== 0) return undefined;
    if (this.live === this.used) return this.hosts.slice(0, this.used);
    const out = new Uint32Array(this.live);
    const { kinds, hosts } = this;
    let k = 0;
    for (let slot = 0, n = this.used; slot < n; slot++) if (kinds[slot] !== DEAD) out[k++] = hosts[slot]!;
    return out;
  }

  /** The slot of host `address`, or -1. */
  private hostSlot(address: number): number {
    const { index, hosts } = this;
    const mask = index.length - 1;
    for (let i = this.home(address); ; i = (i + 1) & mask) {
      const v = index[i]!;
      if (v === 0) return -1;
      if (hosts[v - 1] === address) return v - 1;
    }
  }

  /** Where `address` starts probing (Fibonacci hashing: the high bits of the product mix every bit). */
  private home(address: number): number {
    return Math.imul(address | 0, -1640531535) >>> (Math.clz32(this.index.length) + 1);
  }

  private indexHost(slot: number): void {
    const index = this.index;
    const mask = index.length - 1;
    let i = this.home(this.hosts[slot]!);
    while (index[i] !== 0) i = (i + 1) & mask;
    index[i] = slot + 1;
  }

  /** Takes host `slot` out of the index, shifting back the entries that probed past it. */
  private unindexHost(slot: number): void {
    const { index, hosts } = this;
    const mask = index.length - 1;
    let i = this.home(hosts[slot]!);
    while (index[i] !== slot + 1) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; index[j] !== 0; j = (j + 1) & mask) {
      const h = this.home(hosts[index[j]! - 1]!);
      // The entry at j may fill the hole at i when its home is not cyclically in (i, j].
      if (i <= j ? h <= i || h > j : h <= i && h > j) {
        index[i] = index[j]!;
        i = j;
      }
    }
    index[i] = 0;
  }

  /** Makes room for another slot: compacts when the dead outnumber the live, else doubles. */
  private makeRoom(): void {
    const dead = this.used - this.live;
    if (dead >= this.minCompact && dead > this.live) this.compact();
    if (this.used < this.kinds.length) return;
    const hosts = new Uint32Array(2 * this.kinds.length);
    hosts.set(this.hosts);
    const kinds = new Uint8Array(2 * this.kinds.length);
    kinds.set(this.kinds);
    this.hosts = hosts;
    this.kinds = kinds;
  }

  /** Drops the dead slots, keeping the order; slot numbers change, so the indexes are made again. */
  private compact(): void {
    const { kinds, hosts, pods, texts } = this;
    const newTexts = texts === undefined ? undefined : new Map<number, string>();
    const newSlots = texts === undefined ? undefined : new Map<string, number>();
    let k = 0;
    for (let slot = 0, n = this.used; slot < n; slot++) {
      const kind = kinds[slot]!;
      if (kind === DEAD) continue;
      kinds[k] = kind;
      hosts[k] = hosts[slot]!;
      pods[k] = pods[slot]!;
      if ((kind & KIND_MASK) === TEXT) {
        const text = texts!.get(slot)!;
        newTexts!.set(k, text);
        newSlots!.set(text, k);
      }
      k++;
    }
    kinds.fill(DEAD, k, this.used);
    pods.length = k;
    this.used = k;
    this.texts = newTexts;
    this.textSlots = newSlots;
    // A set that shrank much gives its memory back.
    let slots = FIRST_SLOTS;
    while (slots < 2 * k) slots *= 2;
    if (slots < kinds.length) {
      this.kinds = kinds.slice(0, slots);
      this.hosts = hosts.slice(0, slots);
    }
    let size = 2 * FIRST_SLOTS;
    while (size < 2 * this.liveHosts) size *= 2;
    this.reindex(Math.min(size, this.index.length));
  }

  /** Makes the host index again with `size` entries. */
  private reindex(size: number): void {
    this.index = new Int32Array(size);
    const kinds = this.kinds;
    for (let slot = 0, n = this.used; slot < n; slot++) if ((kinds[slot]! & KIND_MASK) === HOST) this.indexHost(slot);
  }
}
