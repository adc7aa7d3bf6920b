/**
 * PROTOTYPE (not library code): the hash-set part of `planReconcile` computed straight
 * from `ipset save` text, to measure what W2 could cost (BENCHMARKS.md, profiling notes).
 *
 * The library parses every saved member into a string (`parseSave`), then looks each
 * one up in a string-keyed map per desired set (`planReconcile`). At a million members
 * that is a million fresh strings (allocation, GC) and a million lookups that compare
 * string contents (a cache miss on the desired string each). Here IPv4 host members
 * — the bulk of an NPM state — are read from the text as 32-bit numbers and looked up
 * in an open-addressing `Int32Array` table per set; only members that are deleted are
 * sliced out as strings. Anything that is not a plain dotted quad (CIDRs, `nomatch`)
 * takes the string path.
 *
 * Scope: hash:net sets that exist in the kernel and are desired (section F of
 * planReconcile: deletes, then adds). No lists, type conflicts, fates or notes, and the
 * lines are per set in a different order — equivalence is checked on sorted rendered lines.
 */
import { canonicalMember, entryKey } from '@ipsets/core';
import type { DesiredState, ErrorHandler, PlanLine } from '@ipsets/core';

const HANDLERS: readonly ErrorHandler[] = Object.freeze([Object.freeze({ when: 'any', then: 'skip-line', report: 'not-converged' } as const)]);

/** One desired set: members in order, host members in a number-keyed table. */
class WantedSet {
  readonly members: string[] = [];
  /** Open addressing: `slots[i]` is member index + 1 (0 = empty), `keys[i]` its address. */
  private readonly keys: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Entry key → member index, for members that are not plain hosts. */
  readonly other = new Map<string, number>();
  readonly held: Uint8Array;

  constructor(
    readonly name: string,
    count: number,
  ) {
    let capacity = 16;
    while (capacity < count * 2) capacity <<= 1;
    this.keys = new Int32Array(capacity);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.held = new Uint8Array(count);
  }

  private slot(ip: number): number {
    let i = Math.imul(ip, 0x9e3779b1) & this.mask;
    while (this.slots[i] !== 0 && this.keys[i] !== ip) i = (i + 1) & this.mask;
    return i;
  }

  /** Adds a host; false when it is already there. */
  addHost(ip: number, member: string): boolean {
    const i = this.slot(ip);
    if (this.slots[i] !== 0) return false;
    this.keys[i] = ip;
    this.members.push(member);
    this.slots[i] = this.members.length;
    return true;
  }

  /** Member index of a host, or -1. */
  host(ip: number): number {
    return this.slots[this.slot(ip)]! - 1;
  }
}

/** The address of the canonical dotted quad that is exactly `s[start, end)`, as an int32; -1 when it is not one. */
function dottedQuad(s: string, start: number, end: number): number {
  let value = 0;
  let pos = start;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (pos >= end || s.charCodeAt(pos) !== 46) return -1;
      pos++;
    }
    const first = pos;
    let v = 0;
    while (pos < end) {
      const c = s.charCodeAt(pos);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
      pos++;
    }
    const digits = pos - first;
    if (digits === 0 || digits > 3 || v > 255 || (digits > 1 && s.charCodeAt(first) === 48)) return -1;
    value = value * 256 + v;
  }
  // -1 is 255.255.255.255 as an int32: that one address takes the string path.
  return pos === end ? value | 0 : -1;
}

/** Deletes and adds that make the saved hash:net sets equal to `desired` (see the module comment for the scope). */
export function fusedResync(desired: DesiredState, saveText: string): PlanLine[] {
  const wanted = new Map<string, WantedSet>();
  for (const set of desired.sets) {
    const w = new WantedSet(set.name, set.members.length);
    for (const raw of set.members) {
      const ip = dottedQuad(raw, 0, raw.length);
      if (ip !== -1) {
        w.addHost(ip, raw);
        continue;
      }
      const member = canonicalMember('hash:net', raw);
      const key = entryKey(member);
      if (w.other.has(key)) continue;
      w.other.set(key, w.members.length);
      w.members.push(member);
    }
    wanted.set(set.name, w);
  }

  const lines: PlanLine[] = [];
  const del = (w: WantedSet, member: string): void => {
    lines.push({ op: 'del', set: w.name, member, section: `add/update-${w.name}`, onError: HANDLERS });
  };
  let current: WantedSet | undefined;
  let prefix = '';
  const n = saveText.length;
  let pos = 0;
  while (pos < n) {
    let end = saveText.indexOf('\n', pos);
    if (end === -1) end = n;
    const start = pos;
    pos = end + 1;
    if (current !== undefined && saveText.startsWith(prefix, start)) {
      const at = start + prefix.length;
      const ip = dottedQuad(saveText, at, end);
      const w = current;
      if (ip !== -1) {
        const i = w.host(ip);
        if (i >= 0) w.held[i] = 1;
        else del(w, saveText.slice(at, end));
      } else {
        const member = saveText.slice(at, end);
        const i = w.other.get(entryKey(member));
        if (i !== undefined && w.members[i] === member) w.held[i] = 1;
        else del(w, member);
      }
      continue;
    }
    if (saveText.startsWith('create ', start)) {
      const space = saveText.indexOf(' ', start + 7);
      const name = saveText.slice(start + 7, space);
      current = wanted.get(name);
      prefix = `add ${name} `;
    }
  }
  for (const w of wanted.values()) {
    const section = `add/update-${w.name}`;
    for (let i = 0; i < w.members.length; i++) {
      if (w.held[i] === 0) lines.push({ op: 'add', set: w.name, member: w.members[i]!, section, onError: HANDLERS });
    }
  }
  return lines;
}
