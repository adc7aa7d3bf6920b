/**
 * Intern pools for the manager's member strings (the members it keeps as text:
 * hash-members.ts keeps IPv4 hosts as numbers) and pod keys, on only while they pay.
 *
 * Interning saves memory only when callers bring fresh copies of equal strings (an
 * agent re-parsing the same pod's events, a desired file naming one IP in ten sets):
 * each copy then collapses into the pool's one string. When every string is new (every
 * member its own pod) a pool saves nothing and costs a map entry per distinct string,
 * about a third of what the manager keeps per member in that shape.
 *
 * So a pool measures its own hit rate and keeps interning everything only while about
 * half of its lookups find their string or more (a pool entry costs about what a
 * saved copy saves). To measure that even while it is off, one value in 64, chosen by
 * a hash of the value (so every copy of a value is chosen alike), is always interned,
 * and an off pool counts the hit rate over those values; an on pool counts every
 * lookup (reading no character of it). It is judged per window of lookups (64 times
 * as many while on), each window's rate averaged with the running estimate, which
 * starts at 1: a pool warming up (its first strings are all new) is not turned off by
 * one low window. Turned off, the pool drops
 * every entry but the sampled ones; turned on again, it interns what comes. Strings that
 * came while it was off stay the callers' copies: a value first seen then is held at
 * most twice. A window is at least 1/256 of the pool's size (in sampled lookups while
 * off, 64 times that while on), so dropping the entries costs O(1) per lookup, amortised.
 *
 * Strings no set holds any more are dropped by a rebuild, which walks every member of
 * every set. It is due once the pool has doubled since the last one and has grown by an
 * eighth of the members walked then (O(1) per insert, amortised), and it walks only when
 * the manager reported (`noteDropped`) as many dropped holders as a quarter of the pool
 * since the last walk: a pool that only grew holds no dead string worth a walk.
 */
import type { IPSet } from './set-record.js';

/** Which strings of a set's members a pool holds. */
export type PoolKind = 'member' | 'podKey';

/** How a pool samples, decides and rebuilds (tests shrink these to see every transition). */
export interface PoolTuning {
  /** One value in 2^sampleBits is sampled (1 to 16). */
  readonly sampleBits: number;
  /** Sampled lookups per on/off decision, at least. */
  readonly minWindow: number;
  /** Entries a pool may gain before its first rebuild. */
  readonly rebuildSlack: number;
}

/** The manager's pools: one value in 64 sampled, decisions every 256 sampled lookups or more. */
export const POOL_TUNING: PoolTuning = Object.freeze({ sampleBits: 6, minWindow: 256, rebuildSlack: 1024 });

/**
 * True for the values a pool interns whatever its state (one in 2^bits). A hash of the
 * length and the last 16 characters, where IPs, named ports and pod keys of one
 * cluster differ.
 */
export function isSampled(value: string, bits: number = POOL_TUNING.sampleBits): boolean {
  const n = value.length;
  let h = Math.imul(n ^ 0x811c9dc5, 0x01000193);
  for (let i = n > 16 ? n - 16 : 0; i < n; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  // The murmur3 finaliser: FNV's low-entropy top bits become usable.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> (32 - bits) === 0;
}

/** What a pool holds and measured, for tests and diagnostics. */
export interface PoolStats {
  /** True while the pool interns every string (false: only sampled ones). */
  readonly on: boolean;
  /** Strings the pool holds. */
  readonly size: number;
  /** The running estimate of the hit rate that turns it on (≥ 1/2) and off. */
  readonly rate: number;
  /** Lookups counted since the last decision (on: every one; off: the sampled ones), and how many found their string. */
  readonly sampledLookups: number;
  readonly sampledHits: number;
  /** Rebuilds so far (each drops the strings no set holds). */
  readonly rebuilds: number;
}

/** An intern pool for one kind of string (see the module documentation). */
export class StringPool {
  private strings = new Map<string, string>();
  private on = true;
  private rebuiltAt = 0;
  /** Members the last rebuild walked (what the next one will cost, about). */
  private walked = 0;
  private lookups = 0;
  private hits = 0;
  /** The running estimate of the hit rate (each window's rate averaged in). */
  private rate = 1;
  private rebuilds = 0;
  /** Holders of strings the manager dropped since the last walk (removed members, replaced pod keys). */
  private dropped = 0;

  private readonly bits: number;
  private readonly minWindow: number;
  private readonly slack: number;

  /**
   * @param sets the manager's sets: a rebuild keeps the strings they hold.
   * @param kind which strings of their members this pool holds.
   */
  constructor(
    private readonly sets: ReadonlyMap<string, IPSet>,
    private readonly kind: PoolKind,
    tuning: PoolTuning = POOL_TUNING,
  ) {
    this.bits = tuning.sampleBits;
    this.minWindow = tuning.minWindow;
    this.slack = tuning.rebuildSlack;
  }

  /** True when the pool holds a copy of `value` (for tests: which copy cannot be seen from JavaScript). */
  holds(value: string): boolean {
    return this.strings.has(value);
  }

  /** The pool's copy of `value` when it has one or keeps this one; otherwise `value`. */
  intern(value: string): string {
    let interned: string | undefined;
    if (this.on) {
      // On, every lookup counts and no character is read: the first read of a
      // concatenated string (a template literal's) flattens it, which measured several
      // µs per add in the churn benchmark.
      interned = this.strings.get(value);
      this.lookups++;
      if (interned !== undefined) this.hits++;
      if (this.lookups >= Math.max(this.minWindow, this.strings.size >>> 8) << this.bits) {
        this.decide();
        if (!this.on && interned === undefined && !isSampled(value, this.bits)) return value;
      }
    } else {
      if (!isSampled(value, this.bits)) return value;
      interned = this.strings.get(value);
      this.lookups++;
      if (interned !== undefined) this.hits++;
      if (this.lookups >= Math.max(this.minWindow, this.strings.size >>> 8)) this.decide();
    }
    if (interned !== undefined) return interned;
    if (this.strings.size >= Math.max(2 * this.rebuiltAt, this.rebuiltAt + (this.walked >>> 3)) + this.slack) {
      if (4 * this.dropped >= this.strings.size) this.rebuild();
      else this.rebuiltAt = this.strings.size;
    }
    this.strings.set(value, value);
    return value;
  }

  /**
   * `count` holders of strings this pool may hold were dropped: a member removed, a pod
   * key replaced, a set deleted (and an interned string the caller did not keep).
   */
  noteDropped(count = 1): void {
    this.dropped += count;
  }

  /** Forgets every string and measurement (the manager was reset). */
  clear(): void {
    this.strings = new Map();
    this.on = true;
    this.rebuiltAt = 0;
    this.walked = 0;
    this.lookups = 0;
    this.hits = 0;
    this.rate = 1;
    this.rebuilds = 0;
    this.dropped = 0;
  }

  /** What the pool holds and measured. */
  stats(): PoolStats {
    return { on: this.on, size: this.strings.size, rate: this.rate, sampledLookups: this.lookups, sampledHits: this.hits, rebuilds: this.rebuilds };
  }

  /** On while the running estimate says at least half the sampled lookups find their string. */
  private decide(): void {
    this.rate = (this.rate + this.hits / this.lookups) / 2;
    const on = this.rate >= 0.5;
    this.lookups = 0;
    this.hits = 0;
    if (on === this.on) return;
    this.on = on;
    if (on) return;
    const kept = new Map<string, string>();
    for (const value of this.strings.values()) if (isSampled(value, this.bits)) kept.set(value, value);
    this.strings = kept;
    this.rebuiltAt = kept.size;
  }

  private rebuild(): void {
    const live = new Map<string, string>();
    const all = this.on;
    let walked = 0;
    for (const set of this.sets.values()) {
      const members = set.hash;
      if (members === undefined) continue;
      walked += members.size;
      members.forEachPooled(this.kind, (value) => {
        // The first copy met stays the pool's (another copy of the value keeps its holder).
        if ((all || isSampled(value, this.bits)) && !live.has(value)) live.set(value, value);
      });
    }
    this.strings = live;
    this.rebuiltAt = live.size;
    this.walked = walked;
    this.dropped = 0;
    this.rebuilds++;
  }
}
