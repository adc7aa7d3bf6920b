/**
 * `ipset save` / `list` / `list -t` / `list -n` formats (§5), byte for byte, with the
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

/** `ipset save` lines of one set, each ending in `\n`. */
export function saveText(slot: Slot, out: string[]): void {
  const c = slot.content;
  const name = slot.name;
  out.push(`create ${name} ${c.type} ${headerText(c)}\n`);
  const prefix = `add ${name} `;
  for (const m of c.memberLines()) out.push(`${prefix}${m}\n`);
}

/** `ipset list` block of one set (no trailing blank line); `terse` omits `Members:`. */
export function listText(slot: Slot, terse: boolean, out: string[]): void {
  const c = slot.content;
  out.push(
    `Name: ${slot.name}\nType: ${c.type}\nRevision: ${REVISION[c.type]}\nHeader: ${headerText(c)}\n` +
      `Size in memory: ${c.memsize()}\nReferences: ${slot.references}\nNumber of entries: ${c.size}\n`,
  );
  if (terse) return;
  out.push('Members:\n');
  for (const m of c.memberLines()) out.push(`${m}\n`);
}

/** Output modes of list/save (session->mode and the -n/-t env flags). */
export interface ListFormat {
  mode: 'plain' | 'save';
  names: boolean;
  terse: boolean;
}

/** A whole dump of `slots` in the given format. */
export function dumpText(slots: readonly Slot[], f: ListFormat): string {
  const out: string[] = [];
  if (f.names) {
    for (const s of slots) out.push(`${s.name}\n`);
    return out.join('');
  }
  if (f.mode === 'save') {
    for (const s of slots) saveText(s, out);
    return out.join('');
  }
  slots.forEach((s, i) => {
    if (i > 0) out.push('\n');
    listText(s, f.terse, out);
  });
  return out.join('');
}
