/**
 * `ipset save` / `list` / `list -t` / `list -n` formats (docs/ipset-semantics.md §5), byte for byte, with the
 * fake's stand-ins for the random parts (initval, hash order, memory after collisions).
 */
import type { HashContent, ListContent, SetContent } from './sets.js';
import type { Slot } from './state.js';

const REVISION: Record<SetContent['type'], number> = {
  'hash:ip': 6,
  'hash:net': 7,
  'hash:ip,port': 7,
  'list:set': 3,
};

function hashHeader(c: HashContent): string {
  const o = c.opts;
  let s = `family ${o.family === 4 ? 'inet' : 'inet6'} hashsize ${o.hashsize} maxelem ${o.maxelem}`;
  if (o.netmask >= 0 && o.netmask !== (o.family === 4 ? 32 : 128)) s += ` netmask ${o.netmask}`;
  if (o.timeout >= 0) s += ` timeout ${o.timeout}`;
  if (o.counters) s += ' counters';
  if (o.comment) s += ' comment';
  if (o.skbinfo) s += ' skbinfo';
  return `${s} bucketsize ${o.bucketsize} initval 0x${o.initval.toString(16).padStart(8, '0')}`;
}

function listHeader(c: ListContent): string {
  const o = c.opts;
  let s = `size ${o.size}`;
  if (o.timeout >= 0) s += ` timeout ${o.timeout}`;
  if (o.counters) s += ' counters';
  if (o.comment) s += ' comment';
  if (o.skbinfo) s += ' skbinfo';
  return s;
}

/** The `Header:` value (create options without name and type). */
export function headerText(c: SetContent): string {
  return c.kind === 'list' ? listHeader(c) : hashHeader(c);
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * ipset's `-sorted` comparator (bystrcmp, docs/ipset-semantics.md §5.3): base-16 numbers compared as numbers
 * (a missing number counts as 0), other tokens shorter first then bytewise; after a `/`
 * on both sides the order flips (`/24` before `/16`), and an element without `/` sorts
 * before one with it. Reconstructed from the measured examples, not from the C source.
 */
export function sortedCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  let sign = 1;
  for (;;) {
    if (i >= a.length || j >= b.length) return i >= a.length ? (j >= b.length ? 0 : -1) : 1;
    let na = 0;
    let ia = i;
    for (let d = hexDigit(a.charCodeAt(ia)); d >= 0; d = hexDigit(a.charCodeAt(ia))) na = na * 16 + d, ia++;
    let nb = 0;
    let jb = j;
    for (let d = hexDigit(b.charCodeAt(jb)); d >= 0; d = hexDigit(b.charCodeAt(jb))) nb = nb * 16 + d, jb++;
    if ((ia === i) !== (jb === j)) {
      // Only one side has a number here: the other counts as 0 (`2001:db8::/32` < `2001:db8:1::1`).
      const d = ia === i ? -nb : na;
      if (d !== 0) return d * sign;
    }
    if (ia === i || jb === j) {
      let ea = i;
      while (ea < a.length && a[ea] !== ':' && a[ea] !== ',') ea++;
      let eb = j;
      while (eb < b.length && b[eb] !== ':' && b[eb] !== ',') eb++;
      if (ea - i !== eb - j) return ea - i - (eb - j);
      const ta = a.slice(i, ea);
      const tb = b.slice(j, eb);
      if (ta !== tb) return ta < tb ? -1 : 1;
      i = ea;
      j = eb;
    } else {
      if (na !== nb) return (na - nb) * sign;
      i = ia;
      j = jb;
      const sa = a[i] === '/';
      const sb = b[j] === '/';
      if (sa && sb) sign = -1;
      else if (sa !== sb) return sa ? 1 : -1;
    }
    if (i < a.length) i += a[i] === ':' && a[i + 1] === ':' ? 2 : 1;
    if (j < b.length) j += b[j] === ':' && b[j + 1] === ':' ? 2 : 1;
  }
}

function members(slot: Slot, sorted: boolean): Iterable<string> {
  const lines = slot.content.memberLines();
  return sorted && slot.content.kind === 'hash' ? [...lines].sort(sortedCompare) : lines;
}

/** `ipset save` lines of one set, each ending in `\n`. */
export function saveText(slot: Slot, out: string[], sorted = false): void {
  const c = slot.content;
  const name = slot.name;
  out.push(`create ${name} ${c.type} ${headerText(c)}\n`);
  const prefix = `add ${name} `;
  if (!sorted) c.appendLines(prefix, out);
  else for (const m of members(slot, sorted)) out.push(`${prefix}${m}\n`);
}

/** `ipset list` block of one set (no trailing blank line); `terse` omits `Members:`. */
export function listText(slot: Slot, terse: boolean, out: string[], sorted = false): void {
  const c = slot.content;
  out.push(
    `Name: ${slot.name}\nType: ${c.type}\nRevision: ${REVISION[c.type]}\nHeader: ${headerText(c)}\n` +
      `Size in memory: ${c.memsize()}\nReferences: ${slot.references}\nNumber of entries: ${c.size}\n`,
  );
  if (terse) return;
  out.push('Members:\n');
  if (!sorted) c.appendLines('', out);
  else for (const m of members(slot, sorted)) out.push(`${m}\n`);
}

/** Output modes of list/save (session->mode and the -n/-t env flags). */
export interface ListFormat {
  mode: 'plain' | 'save';
  names: boolean;
  terse: boolean;
  /** `-sorted`: hash-set members in bystrcmp order. */
  sorted?: boolean;
}

/** A whole dump of `slots` in the given format. */
export function dumpText(slots: readonly Slot[], f: ListFormat): string {
  const out: string[] = [];
  if (f.names) {
    for (const s of slots) out.push(`${s.name}\n`);
    return out.join('');
  }
  if (f.mode === 'save') {
    for (const s of slots) saveText(s, out, f.sorted);
    return out.join('');
  }
  slots.forEach((s, i) => {
    if (i > 0) out.push('\n');
    listText(s, f.terse, out, f.sorted);
  });
  return out.join('');
}
