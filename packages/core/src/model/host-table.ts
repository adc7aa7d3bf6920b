/**
 * A table of IPv4 host members by address: reconcile planning holds the host members
 * (`a.b.c.d[ nomatch]`) of a desired hash:net set of family inet in one, so that a
 * million fresh kernel strings are looked up by the number they spell instead of by
 * string hash and contents, and `SetMembers.check` finds second spellings of a host
 * entry in one. The tables of one plan share one pool of typed arrays.
 */

/**
 * Host members of a hash:net set by address (open addressing, linear probing). A slot
 * holds `index + 1` of the member in the desired set's canonical members, negated when
 * the member has ` nomatch`; 0 is empty.
 */
export class HostTable {
  private readonly addresses: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  /** What prefetch.ts `touchStrings` read for this table, kept so that its reads are not optimised away. */
  touched = 0;

  /** Slots a table for `capacity` members takes from a {@link HostTablePool}. */
  static size(capacity: number): number {
    let bits = 3;
    while (1 << bits < capacity * 2) bits++;
    return 1 << bits;
  }

  /** @param capacity the most members it will hold; its arrays are views of `pool`'s. */
  constructor(capacity: number, pool: HostTablePool) {
    const size = HostTable.size(capacity);
    [this.addresses, this.slots] = pool.take(size);
    this.mask = size - 1;
    this.shift = 32 - Math.log2(size);
  }

  /** The slot value of `address` (see the class), or 0 when it is absent. */
  get(address: number): number {
    const a = address | 0;
    const { addresses, slots, mask } = this;
    // Fibonacci hashing: the high bits of the product mix every bit of the address.
    for (let i = Math.imul(a, -1640531535) >>> this.shift; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0 || addresses[i] === a) return v;
    }
  }

  /** Stores `value` for `address` unless it is present; returns the present value, or 0 when stored. */
  insertIfAbsent(address: number, value: number): number {
    const a = address | 0;
    const { addresses, slots, mask } = this;
    for (let i = Math.imul(a, -1640531535) >>> this.shift; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) {
        addresses[i] = a;
        slots[i] = value;
        return 0;
      }
      if (addresses[i] === a) return v;
    }
  }
}

/**
 * The arrays of every {@link HostTable} of one plan, allocated at once: a few typed
 * arrays per desired set measured costlier to allocate than the tables cost to fill.
 */
export class HostTablePool {
  private readonly addresses: Int32Array;
  private readonly slots: Int32Array;
  private used = 0;

  constructor(slots: number) {
    this.addresses = new Int32Array(slots);
    this.slots = new Int32Array(slots);
  }

  /** The next `size` slots (zeroed: never handed out before); arrays of their own past the pool's end. */
  take(size: number): [Int32Array, Int32Array] {
    if (this.used + size > this.slots.length) return [new Int32Array(size), new Int32Array(size)];
    const from = this.used;
    this.used += size;
    return [this.addresses.subarray(from, this.used), this.slots.subarray(from, this.used)];
  }
}
