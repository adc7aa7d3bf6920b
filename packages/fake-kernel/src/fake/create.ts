/**
 * Userspace parsing of `create NAME TYPE [options]` (type names with their old
 * aliases, create options per type, their value checks) into fresh set contents.
 */
import { checkSetName, type Family, ParseFailure, type SetTypeName, syntaxError } from './elements.js';
import { parseCNumber } from './numbers.js';
import { HashContent, ListContent, type SetContent } from './sets.js';

/** Type names and aliases ipset accepts (exact, case-sensitive). */
const TYPE_NAMES: ReadonlyMap<string, SetTypeName> = new Map([
  ['hash:ip', 'hash:ip'],
  ['iphash', 'hash:ip'],
  ['hash:net', 'hash:net'],
  ['nethash', 'hash:net'],
  ['hash:ip,port', 'hash:ip,port'],
  ['ipporthash', 'hash:ip,port'],
  ['list:set', 'list:set'],
  ['setlist', 'list:set'],
]);

/** Real ipset types the fake does not model: creating one is a clear, fake-specific error. */
const UNMODELLED = new Set([
  'bitmap:ip',
  'bitmap:ip,mac',
  'bitmap:port',
  'hash:mac',
  'hash:ip,mac',
  'hash:net,net',
  'hash:ip,port,ip',
  'hash:ip,port,net',
  'hash:ip,mark',
  'hash:net,port',
  'hash:net,port,net',
  'hash:net,iface',
  'hash:ip,ip',
]);

/** A parsed create line: the contents to install (kernel errors come later). */
export interface CreateRequest {
  name: string;
  content: SetContent;
  /** Requested hashsize before rounding is ≥ 2^31 (the kernel answers ENOMEM). */
  tooBig: boolean;
}

type CreateOpt =
  | 'family'
  | '-4'
  | '-6'
  | 'hashsize'
  | 'maxelem'
  | 'netmask'
  | 'timeout'
  | 'counters'
  | 'comment'
  | 'skbinfo'
  | 'forceadd'
  | 'bucketsize'
  | 'initval'
  | 'size';

const HASH_OPTS: readonly CreateOpt[] = [
  'family',
  '-4',
  '-6',
  'hashsize',
  'maxelem',
  'timeout',
  'counters',
  'comment',
  'skbinfo',
  'forceadd',
  'bucketsize',
  'initval',
];
const NO_ARG = new Set<CreateOpt>(['-4', '-6', 'counters', 'comment', 'skbinfo', 'forceadd']);

function optionsOf(type: SetTypeName): readonly CreateOpt[] {
  if (type === 'list:set') return ['size', 'timeout', 'counters', 'comment', 'skbinfo'];
  if (type === 'hash:ip') return [...HASH_OPTS, 'netmask'];
  return HASH_OPTS;
}

function u32(text: string): number {
  const v = parseCNumber(text, 0, 4294967295);
  if (typeof v === 'string') syntaxError(v);
  return v;
}

/** Rounds a requested hashsize like the kernel (power of two, at least 64). */
export function roundHashsize(requested: number): number {
  let h = 64;
  while (h < requested) h *= 2;
  return h;
}

/**
 * Parses the words after `create` (words[start] = name). `initval` supplies the
 * deterministic stand-in when the line gives none.
 */
export function parseCreate(words: readonly string[], start: number, end: number, initval: (name: string) => number): CreateRequest {
  const name = checkSetName(words[start] as string);
  const typeWord = words[start + 1] as string;
  const type = TYPE_NAMES.get(typeWord);
  if (type === undefined) {
    if (UNMODELLED.has(typeWord)) {
      throw new ParseFailure('session', `Syntax error: typename '${typeWord}' is not modelled by the fake kernel`);
    }
    syntaxError(`typename '${typeWord}' is unknown`);
  }
  const allowed = optionsOf(type);
  let family: Family = 4;
  let hashsize = 1024;
  let maxelem = 65536;
  let netmask = -1;
  let timeout = -1;
  let counters = false;
  let comment = false;
  let skbinfo = false;
  let forceadd = false;
  let bucketsize = 12;
  let iv: number | undefined;
  let size = 8;
  // ipset_call_parser(): an option whose value slot is already set fails before its
  // value is read (measured: `maxelem 4 maxelem 5`, `-4 -6`, `-6 family inet6`); the
  // flags without a value (counters, comment, skbinfo, forceadd) may repeat.
  const given = new Set<string>();
  for (let i = start + 2; i < end; i++) {
    const word = words[i] as string;
    const w = word.startsWith('--') ? word.slice(2) : word;
    const opt = allowed.find((o) => o === w);
    if (opt === undefined) throw new ParseFailure('parameter', `Unknown argument: \`${word}'`);
    let arg = '';
    if (!NO_ARG.has(opt)) {
      if (i + 1 >= end) throw new ParseFailure('parameter', `Missing mandatory argument of option \`${opt}'`);
      arg = words[++i] as string;
    }
    const slot = opt === '-4' || opt === '-6' ? 'family' : opt;
    if (!NO_ARG.has(opt) || slot === 'family') {
      if (given.has(slot)) syntaxError(`${opt} already specified`);
      given.add(slot);
    }
    switch (opt) {
      case 'family':
        if (arg === 'inet' || arg === 'ipv4') family = 4;
        else if (arg === 'inet6' || arg === 'ipv6') family = 6;
        else syntaxError(`unknown inet family ${arg}`);
        break;
      case '-4':
        family = 4;
        break;
      case '-6':
        family = 6;
        break;
      case 'hashsize':
        hashsize = u32(arg);
        break;
      case 'maxelem':
        maxelem = u32(arg);
        break;
      case 'netmask': {
        const max = family === 4 ? 32 : 128;
        const v = parseCNumber(arg, 0, 255);
        if (typeof v === 'string') syntaxError(v);
        if (v < 1 || v > max) syntaxError(`netmask is out of the inclusive range of 1-${max}`);
        netmask = v;
        break;
      }
      case 'timeout':
        timeout = u32(arg);
        break;
      case 'counters':
        counters = true;
        break;
      case 'comment':
        comment = true;
        break;
      case 'skbinfo':
        skbinfo = true;
        break;
      case 'forceadd':
        forceadd = true;
        break;
      case 'bucketsize': {
        const v = parseCNumber(arg, 0, 255);
        if (typeof v === 'string') syntaxError(v);
        bucketsize = Math.min(12, Math.max(2, v + (v % 2)));
        break;
      }
      case 'initval':
        iv = u32(arg);
        break;
      case 'size':
        size = Math.max(4, u32(arg));
        break;
    }
  }
  if (type === 'list:set') {
    return { name, content: new ListContent({ size, timeout, counters, comment, skbinfo }), tooBig: false };
  }
  const tooBig = hashsize > 2 ** 30;
  const content = new HashContent(type, {
    family,
    hashsize: tooBig ? 2 ** 31 : roundHashsize(hashsize),
    maxelem,
    netmask,
    timeout,
    counters,
    comment,
    skbinfo,
    forceadd,
    bucketsize,
    initval: iv ?? initval(name),
  });
  return { name, content, tooBig };
}
