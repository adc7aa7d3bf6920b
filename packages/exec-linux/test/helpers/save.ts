/**
 * Normalising `ipset save` output for comparisons: drops what the kernel picks at
 * random or grows on its own (`initval`, `hashsize`), and sorts the members of hash
 * sets (hash order depends on `initval`). Set order and list:set member order are
 * deterministic and kept.
 */
import type { DesiredState } from '@ipsets/core';

/** One set of a normalised save. */
export interface NormalSet {
  name: string;
  type: string;
  /** Create options without `initval`/`hashsize`. */
  options: string;
  members: string[];
}

/** Parses and normalises `ipset save` text (unknown lines are kept as `?` entries so they still compare). */
export function normaliseSave(text: string): NormalSet[] {
  const sets: NormalSet[] = [];
  const byName = new Map<string, NormalSet>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const create = /^create (\S+) (\S+)(?: (.*))?$/.exec(line);
    if (create !== null) {
      const options = (create[3] ?? '')
        .replace(/ ?\binitval 0x[0-9a-f]+/, '')
        .replace(/ ?\bhashsize \d+/, '')
        .trim();
      const set: NormalSet = { name: create[1]!, type: create[2]!, options, members: [] };
      sets.push(set);
      byName.set(set.name, set);
      continue;
    }
    const add = /^add (\S+) (.*)$/.exec(line);
    const set = add === null ? undefined : byName.get(add[1]!);
    if (set !== undefined) set.members.push(add![2]!);
    else sets.push({ name: '?', type: '?', options: line, members: [] });
  }
  for (const set of sets) if (set.type !== 'list:set') set.members.sort();
  return sets;
}

/** A normalised save as text (for readable diffs in failures). */
export function normalisedText(text: string): string {
  return normaliseSave(text)
    .map((s) => [`create ${s.name} ${s.type} ${s.options}`.trim(), ...s.members.map((m) => `add ${s.name} ${m}`)].join('\n'))
    .join('\n');
}

const KERNEL_TYPE: Record<string, string> = {
  nethash: 'hash:net',
  'nethash maxelem 4294967295': 'hash:net',
  'hash:ip,port': 'hash:ip,port',
  setlist: 'list:set',
};

/** The owned sets of a save as `name → { type, members }` (hash members sorted). */
export function ownedState(saveText: string, owner: string): Record<string, { type: string; members: string[] }> {
  const out: Record<string, { type: string; members: string[] }> = {};
  for (const s of normaliseSave(saveText)) if (s.name.startsWith(owner)) out[s.name] = { type: s.type, members: s.members };
  return out;
}

/** A desired state in the shape of {@link ownedState}. */
export function desiredAsState(desired: DesiredState): Record<string, { type: string; members: string[] }> {
  const out: Record<string, { type: string; members: string[] }> = {};
  for (const s of desired.sets) {
    const type = KERNEL_TYPE[s.spec] ?? s.spec;
    out[s.name] = { type, members: type === 'list:set' ? [...s.members] : [...s.members].sort() };
  }
  return out;
}
