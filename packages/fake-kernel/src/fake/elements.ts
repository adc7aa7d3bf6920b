/**
 * Userspace parsing of add/del/test arguments (ipset's lib/parse.c), producing one
 * {@link Elem} per line with its exact netlink size for batching (docs/ipset-semantics.md §2.4). Parse failures
 * are thrown as {@link ParseFailure}s; the caller decides what survives.
 *
 * Why one file: it mirrors one C file (lib/parse.c): every argument form an add/del/test
 * line can carry and its netlink size, which must agree with each other to batch right.
 */
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from './inet.js';
import { MSG, nameTooLong } from './messages.js';
import {
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  icmpByName,
  icmpText,
  protocolByName,
  protocolHasPorts,
  protocolName,
  serviceByName,
} from './netdb.js';
import { parseCNumber, parseCNumberBig, scanHex } from './numbers.js';
import { utf8Length } from './tokenizer.js';

/** Set types the fake models. */
export type SetTypeName = 'hash:ip' | 'hash:net' | 'hash:ip,port' | 'list:set';
/** Address family: 4 = inet, 6 = inet6. */
export type Family = 4 | 6;
/** The element commands. */
export type AdtCmd = 'add' | 'del' | 'test';

/**
 * How a line failed in userspace:
 * - `session`: printed as `Error in line N: msg`, rc 1 (U in the spec);
 * - `parameter`: printed without line number plus the Try-line, rc 2 (P);
 * - `raw`: printed as is without line number, rc 1 (port errors, the mandatory-flags bug).
 */
export type FailureKind = 'session' | 'parameter' | 'raw';

/** A userspace failure of one line. */
export class ParseFailure {
  constructor(
    readonly kind: FailureKind,
    readonly message: string,
    /** A syntax error the parser reported earlier on the line but did not fail on ({@link Elem.familyError}). */
    readonly earlier?: string,
  ) {}
}

/** Throws a `Syntax error: …` session failure. */
export function syntaxError(message: string): never {
  throw new ParseFailure('session', `Syntax error: ${message}`);
}

/** Optional per-element extension values (only those given on the line). */
export interface ElemExt {
  timeout?: number;
  packets?: bigint;
  bytes?: bigint;
  comment?: string;
  skbmark?: readonly [number, number];
  skbprio?: readonly [number, number];
  skbqueue?: number;
}

/** One parsed add/del/test line, as ipset would put it into a netlink message. */
export class Elem {
  line = 0;
  /**
   * The element as `test` messages print it: as ipset parsed it for hash types
   * ({@link printedElem}), the name (or `NAME after REF`) for a list:set.
   */
  text = '';
  family: Family = 4;
  ip = 0;
  /** Range end (IP_TO attribute), -1 when absent. */
  ipTo = -1;
  /** CIDR attribute, -1 when absent. */
  cidr = -1;
  ip6: Uint16Array | null = null;
  proto = 0;
  port = 0;
  /** PORT_TO attribute, -1 when absent. */
  portTo = -1;
  nomatch = false;
  ext: ElemExt | null = null;
  /** list:set: member name, reference name, before/after. */
  name: string | null = null;
  ref: string | null = null;
  before = false;
  /** Bytes this element adds to a batch. */
  size = 0;
  /** The element fits iff batchLength + need <= 4096 (docs/ipset-semantics.md §2.4 fit rule, all attributes). */
  need = 0;
  /** Injected kernel failure (fault plans). */
  fault: string | null = null;
  /**
   * An icmp type of the other family (`icmpv6:ping` in an inet set): ipset 7.17 reports
   * this syntax error but parses on as if it succeeded, with the set name lost (docs/ipset-semantics.md §3.2).
   */
  familyError: string | null = null;
}

// Wire accounting scratch (module level to stay allocation free).
let wOff = 0;
let wNeed = 0;
function wStart(): void {
  wOff = 4; // IPSET_ATTR_DATA nest header
  wNeed = 0;
}
function wAttr(size: number, nest: number, policy: number): void {
  const n = wOff + nest + 4 + ((policy + 3) & ~3) + 20;
  if (n > wNeed) wNeed = n;
  wOff += size;
}
function wIp(family: Family): void {
  if (family === 4) wAttr(12, 4, 4);
  else wAttr(24, 4, 16);
}
function wString(len: number, policy: number): void {
  wAttr(4 + ((len + 1 + 3) & ~3), 0, policy);
}
function wFinish(e: Elem): void {
  wAttr(8, 0, 4); // IPSET_ATTR_LINENO
  e.size = wOff;
  e.need = wNeed;
}

/** Netlink size of a batch header for a set name (docs/ipset-semantics.md §2.4 `H`). */
export function batchHeaderSize(setName: string): number {
  return 16 + 4 + 8 + ((4 + byteLength(setName) + 1 + 3) & ~3) + 8 + 4;
}

/** UTF-8 byte length (names are almost always ASCII; a raw byte of a cut character counts one). */
export const byteLength = utf8Length;

/** ipset_parse_setname: at most 31 bytes. */
export function checkSetName(name: string): string {
  if (byteLength(name) > 31) throw new ParseFailure('session', nameTooLong(name));
  return name;
}

function resolveFailed(part: string, family: Family): never {
  return syntaxError(`cannot parse ${part}: resolving to ${family === 4 ? 'IPv4' : 'IPv6'} address failed`);
}

/** string_to_cidr(): u8 first (0-255 message), then the family range. */
function parseCidr(text: string, max: number): number {
  const v = parseCNumber(text, 0, 255);
  if (typeof v === 'string') syntaxError(v);
  if (v > max) syntaxError(`'${text}' is out of range 0-${max}`);
  return v;
}

/** The separator position when something stands on both sides of it (`-1` is a port, not a range). */
function splitIndex(s: string, ch: string): number {
  const i = s.indexOf(ch);
  return i > 0 && i < s.length - 1 ? i : -1;
}

/**
 * escape_range_separator(): an address may be written in brackets (`[10.0.0.1]`,
 * `[fe80::1]-[fe80::2]`); then only a `-` right after the `]` separates a range.
 * Returns the index of the range `-`, or -1.
 */
function rangeIndex(text: string): number {
  if (text[0] !== '[') return splitIndex(text, '-');
  const close = text.indexOf(']');
  if (close < 0) syntaxError(`cannot find closing escape character ']' in ${text}`);
  if (close === text.length - 1) return -1;
  if (text[close + 1] !== '-') syntaxError(`range separator expected after '${text.slice(0, close + 1)}'`);
  return close + 1;
}

/** strip_escape(): the address inside its brackets (messages quote the stripped text). */
function stripEscape(text: string): string {
  if (text[0] !== '[') return text;
  if (text[text.length - 1] !== ']') syntaxError(`cannot find closing escape character ']' in ${text}`);
  return text.slice(1, -1);
}

function parseV6Part(part: string): Uint16Array {
  const p = stripEscape(part);
  const w = parseIPv6(p);
  if (w === undefined) resolveFailed(p, 6);
  return w;
}

function parseV4Part(part: string): number {
  const p = stripEscape(part);
  const ip = parseIPv4(p);
  if (ip < 0) resolveFailed(p, 4);
  return ip;
}

/**
 * The address part of an element: `ipset_parse_ip4_single6` (hash:ip, hash:ip,port;
 * `net` = false) or `ipset_parse_ip4_net6` (hash:net; `net` = true).
 */
function parseAddress(e: Elem, text: string, family: Family, net: boolean): void {
  if (family === 6) {
    const slash = splitIndex(text, '/');
    const dash = slash >= 0 ? text.indexOf('-') : rangeIndex(text);
    if (!net && (dash >= 0 || slash >= 0)) {
      if (dash < 0 && slash >= 0 && parseCNumber(text.slice(slash + 1), 128, 128) === 128) {
        e.ip6 = parseV6Part(text.slice(0, slash));
        e.cidr = 128;
        return;
      }
      syntaxError(`plain IP address must be supplied: ${text}`);
    }
    // ipset_parse_ipnet() refuses a range before it reads a CIDR, also a `-` after the
    // `/` (`2001:db8::/-64`); a `-` at the end is no range (`/64-` is a bad CIDR).
    if (net && (slash < 0 ? dash : splitIndex(text, '-')) >= 0) syntaxError(`IP address or IP/cidr must be specified: ${text}`);
    if (slash >= 0) {
      e.cidr = parseCidr(text.slice(slash + 1), 128);
      e.ip6 = parseV6Part(text.slice(0, slash));
    } else {
      e.ip6 = parseV6Part(text);
    }
    return;
  }
  // parse_ipaddr(): the CIDR separator first, then the (bracket-aware) range one.
  const slash = splitIndex(text, '/');
  if (slash >= 0) {
    e.cidr = parseCidr(text.slice(slash + 1), 32);
    e.ip = parseV4Part(text.slice(0, slash));
    return;
  }
  const dash = rangeIndex(text);
  if (dash >= 0) {
    e.ip = parseV4Part(text.slice(0, dash));
    e.ipTo = parseV4Part(text.slice(dash + 1));
    return;
  }
  e.ip = parseV4Part(text);
}

function isNumeric(text: string): boolean {
  return typeof parseCNumber(text, 0, 255) === 'number';
}

/** ipset_parse_port(): number, then service name; the 2–3 line error without line number. */
function parsePort(text: string, protoText: string): number {
  const n = parseCNumber(text, 0, 65535);
  if (typeof n === 'number') return n;
  let lines = `Syntax error: ${n}\n`;
  let service: number | undefined;
  const protoNum = parseCNumber(protoText, 0, 255);
  if (typeof protoNum === 'number') {
    const pname = protocolName(protoNum);
    service = pname === undefined ? undefined : serviceByName(text, pname);
  } else {
    lines += `Syntax error: '${protoText}' is invalid as number\n`;
    service = serviceByName(text, protoText);
  }
  if (service !== undefined) return service;
  throw new ParseFailure('raw', `${lines}cannot parse '${text}' as a ${protoText} port`);
}

/** ipset_parse_proto(). */
function parseProto(text: string): number {
  const named = protocolByName(text.toLowerCase() === 'icmpv6' ? 'ipv6-icmp' : text);
  if (named !== undefined) return named;
  const n = parseCNumber(text, 0, 255);
  if (typeof n === 'number') return n;
  return syntaxError(`cannot parse '${text}' as a protocol`);
}

function parseIcmp(e: Elem, text: string, v6: boolean): void {
  const named = icmpByName(text, v6);
  if (named !== undefined) {
    e.port = named;
    return;
  }
  const slash = splitIndex(text, '/');
  if (slash < 0) throw new ParseFailure('session', `Cannot parse ${text} as an ICMP${v6 ? 'v6' : ''} type/code.`);
  const t = parseCNumber(text.slice(0, slash), 0, 255);
  if (typeof t === 'string') syntaxError(t);
  const c = parseCNumber(text.slice(slash + 1), 0, 255);
  if (typeof c === 'string') syntaxError(c);
  e.port = (t << 8) | c;
}

/** ipset_parse_proto_port(). */
function parseProtoPort(e: Elem, text: string, family: Family): void {
  const colon = text.indexOf(':');
  if (colon > 0 && colon < text.length - 1) {
    const protoText = text.slice(0, colon);
    const rest = text.slice(colon + 1);
    const proto = parseProto(protoText);
    e.proto = proto;
    if (protocolHasPorts(proto)) {
      parsePortRange(e, rest, protoText);
      return;
    }
    if (proto === IPPROTO_ICMP || proto === IPPROTO_ICMPV6) {
      if ((proto === IPPROTO_ICMP) !== (family === 4)) {
        e.familyError =
          proto === IPPROTO_ICMP
            ? 'Syntax error: Protocol ICMP can be used with family inet only'
            : 'Syntax error: Protocol ICMPv6 can be used with family inet6 only';
        return;
      }
      parseIcmp(e, rest, proto === IPPROTO_ICMPV6);
      return;
    }
    if (rest !== '0') syntaxError(`Protocol ${protoText} can be used with pseudo port value 0 only.`);
    e.port = 0;
    return;
  }
  e.proto = 6;
  parsePortRange(e, text, 'tcp');
}

function parsePortRange(e: Elem, text: string, protoText: string): void {
  const dash = splitIndex(text, '-');
  if (dash >= 0) {
    e.portTo = parsePort(text.slice(dash + 1), protoText);
    e.port = parsePort(text.slice(0, dash), protoText);
  } else {
    e.port = parsePort(text, protoText);
  }
}

/** Static description of a set as userspace sees it (cached type and family). */
export interface SetView {
  type: SetTypeName;
  family: Family;
}

type OptName = 'timeout' | 'nomatch' | 'packets' | 'bytes' | 'comment' | 'skbmark' | 'skbprio' | 'skbqueue' | 'before' | 'after';
const EXT_OPTS: readonly OptName[] = ['timeout', 'packets', 'bytes', 'comment', 'skbmark', 'skbprio', 'skbqueue'];

/** The options a command accepts after the element, per set type (type->cmd[].args). */
function allowedOptions(type: SetTypeName, cmd: AdtCmd): readonly OptName[] {
  if (type === 'list:set') return cmd === 'add' ? ['before', 'after', ...EXT_OPTS] : ['before', 'after'];
  if (cmd === 'add') return type === 'hash:net' ? ['timeout', 'nomatch', ...EXT_OPTS.slice(1)] : EXT_OPTS;
  if (cmd === 'test' && type === 'hash:net') return ['nomatch'];
  return [];
}

/** ipset_match_option: exact name, two leading dashes allowed. */
function matchOption(word: string, allowed: readonly OptName[]): OptName | undefined {
  const w = word.startsWith('--') ? word.slice(2) : word;
  for (const o of allowed) if (o === w) return o;
  return undefined;
}

function parseExtNumber(text: string): number {
  const v = parseCNumber(text, 0, 4294967295);
  if (typeof v === 'string') syntaxError(v);
  return v;
}

function parseU64(text: string): bigint {
  const v = parseCNumberBig(text, 0n, (1n << 64n) - 1n);
  if (typeof v === 'string') syntaxError(v);
  return BigInt(v);
}

/**
 * ipset_parse_skbmark(): `sscanf(str, "0x%lx/0x%lx")`, else `sscanf(str, "0x%lx")` with
 * mask 0xffffffff. So the literal lower-case `0x` is required (`1`, `0X1` fail), trailing
 * text is ignored (`0x1zz`, `0x1/255` keep the default mask), and both halves keep only
 * their low 32 bits (the kernel gets `mark << 32 | mask` as one u64).
 */
function parseSkbmark(text: string): [number, number] {
  const mark = text.startsWith('0x') ? scanHex(text, 2) : null;
  if (mark === null) syntaxError('Invalid skbmark format, it should be:  MARK/MASK or MARK (see manpage)');
  const mask = text.startsWith('/0x', mark.end) ? scanHex(text, mark.end + 3) : null;
  return [Number(mark.value & 0xffffffffn), mask === null ? 0xffffffff : Number(mask.value & 0xffffffffn)];
}

/**
 * ipset_parse_skbprio(): `sscanf(str, "%x:%x")` (both needed, trailing text ignored);
 * the kernel gets `maj << 16 | (min & 0xffff)` in 32 bits, so each half keeps 16 bits.
 */
function parseSkbprio(text: string): [number, number] {
  const major = scanHex(text, 0);
  const minor = major !== null && text[major.end] === ':' ? scanHex(text, major.end + 1) : null;
  if (major === null || minor === null) syntaxError('Invalid skbprio format, it should be:MAJOR:MINOR (see manpage)');
  return [Number(major.value & 0xffffn), Number(minor.value & 0xffffn)];
}

/**
 * Parses `SETNAME ELEM [options]` (words[start] is the element) of an add/del/test line
 * for a set of the given view. Returns the element with its wire size.
 */
export function parseAdt(words: readonly string[], start: number, end: number, cmd: AdtCmd, view: SetView): Elem {
  const e = new Elem();
  const text = words[start] as string;
  e.text = text;
  e.family = view.family;
  wStart();
  if (view.type === 'list:set') {
    parseListElem(e, text);
  } else {
    parseHashElem(e, text, view);
  }
  try {
    parseOptions(e, words, start, end, cmd, view);
  } catch (err) {
    // Outside restore mode both reports are printed, the swallowed one first.
    if (e.familyError !== null && err instanceof ParseFailure && err.kind === 'session') {
      throw new ParseFailure('session', err.message, e.familyError);
    }
    throw err;
  }
  if (cmd === 'test') checkTestAllowed(e, view);
  // ipset 7.17 prints a referenced list:set element as `NAME after REF` for both
  // `before` and `after` (measured: `test l a before b` -> `Warning: a after b is in set l.`).
  if (e.ref !== null) e.text = `${e.name as string} after ${e.ref}`;
  if (view.type !== 'list:set') e.text = printedElem(e, view);
  accountWire(e, view);
  return e;
}

/** One bit per option value slot (`nomatch` is a flag and may repeat). */
const OPT_BIT: Readonly<Record<Exclude<OptName, 'nomatch' | 'after'>, number>> = {
  before: 1,
  timeout: 2,
  packets: 4,
  bytes: 8,
  comment: 16,
  skbmark: 32,
  skbprio: 64,
  skbqueue: 128,
};

function parseOptions(e: Elem, words: readonly string[], start: number, end: number, cmd: AdtCmd, view: SetView): void {
  let seen = 0;
  for (let i = start + 1; i < end; i++) {
    const word = words[i] as string;
    const opt = matchOption(word, allowedOptions(view.type, cmd));
    if (opt === undefined) throw new ParseFailure('parameter', `Unknown argument: \`${word}'`);
    if (opt === 'nomatch') {
      e.nomatch = true;
      continue;
    }
    const arg = words[i + 1];
    if (i + 1 >= end || arg === undefined) {
      throw new ParseFailure('parameter', `Missing mandatory argument of option \`${opt}'`);
    }
    i++;
    // ipset_call_parser(): an option whose value is already set fails (measured: `timeout 5
    // timeout 6`); `before` and `after` share IPSET_OPT_NAMEREF, which the comma form sets too.
    const bit = opt === 'after' ? OPT_BIT.before : OPT_BIT[opt];
    if ((seen & bit) !== 0 || (bit === OPT_BIT.before && e.ref !== null)) syntaxError(`${opt} already specified`);
    seen |= bit;
    const ext: ElemExt = (e.ext ??= {});
    switch (opt) {
      case 'before':
      case 'after':
        e.ref = checkSetName(arg);
        e.before = opt === 'before';
        break;
      case 'timeout':
        ext.timeout = parseExtNumber(arg);
        break;
      case 'packets':
        ext.packets = parseU64(arg);
        break;
      case 'bytes':
        ext.bytes = parseU64(arg);
        break;
      case 'comment':
        if (byteLength(arg) > 255) syntaxError('Comment is longer than the maximum allowed 255 characters');
        ext.comment = arg;
        break;
      case 'skbmark':
        ext.skbmark = parseSkbmark(arg);
        break;
      case 'skbprio':
        ext.skbprio = parseSkbprio(arg);
        break;
      case 'skbqueue': {
        const q = parseCNumber(arg, 0, 65535);
        if (typeof q === 'string') syntaxError(q);
        ext.skbqueue = q;
        break;
      }
    }
  }
}

/**
 * ipset_strchr(): a separator counts only when the text neither starts nor ends with one
 * (so `n,`, `,before,a` and `n,before,a,` are plain set names).
 */
function elemSeparator(text: string): number {
  if (text.startsWith(',') || text.endsWith(',')) return -1;
  return text.indexOf(',');
}

/**
 * ipset_parse_name_compat(): `NAME` or `NAME,before|after,REF` (measured on 7.17). The
 * middle word must be exactly `before`/`after`, else a userspace error without the
 * `Syntax error: ` prefix; name lengths are checked only after the shape (member first).
 * The reference may itself contain commas (`n,before,a,b` refers to `a,b`).
 */
function parseListElem(e: Elem, text: string): void {
  const sep = elemSeparator(text);
  if (sep < 0) {
    e.name = checkSetName(text);
    return;
  }
  const rest = text.slice(sep + 1);
  const sep2 = elemSeparator(rest);
  const word = sep2 < 0 ? rest : rest.slice(0, sep2);
  if (sep2 < 0 || (word !== 'before' && word !== 'after')) throw new ParseFailure('session', MSG.listElemFormat);
  e.name = checkSetName(text.slice(0, sep));
  e.ref = checkSetName(rest.slice(sep2 + 1));
  e.before = word === 'before';
}

function parseHashElem(e: Elem, text: string, view: SetView): void {
  if (view.type === 'hash:ip,port') {
    const comma = text.indexOf(',');
    if (comma < 0 || comma === text.length - 1) syntaxError(`Second element is missing from ${text}.`);
    const second = text.slice(comma + 1);
    if (second.indexOf(',') >= 0) {
      syntaxError(`Two elem separators in ${text}, but settype hash:ip,port supports one.`);
    }
    parseAddress(e, text.slice(0, comma), view.family, false);
    parseProtoPort(e, second, view.family);
    return;
  }
  if (text.indexOf(',') >= 0) syntaxError(`Elem separator in ${text}, but settype ${view.type} supports none.`);
  parseAddress(e, text, view.family, view.type === 'hash:net');
}

/** Appends the element's attributes in attribute-number order (docs/ipset-semantics.md §2.4). */
function accountWire(e: Elem, view: SetView): void {
  if (view.type === 'list:set') {
    if (e.before) wAttr(8, 0, 4); // CADT_FLAGS
    wString(byteLength(e.name as string), 32); // NAME
    if (e.ref !== null) wString(byteLength(e.ref), 32); // NAMEREF
  } else {
    wIp(e.family); // IP
    if (e.ipTo >= 0) wIp(e.family); // IP_TO
    if (e.cidr >= 0) wAttr(8, 0, 1); // CIDR
    if (view.type === 'hash:ip,port') {
      wAttr(8, 0, 2); // PORT
      if (e.portTo >= 0) wAttr(8, 0, 2); // PORT_TO
    }
  }
  const x = e.ext;
  if (x?.timeout !== undefined) wAttr(8, 0, 4); // TIMEOUT
  if (view.type === 'hash:ip,port') wAttr(8, 0, 1); // PROTO
  if (e.nomatch) wAttr(8, 0, 4); // CADT_FLAGS
  if (x !== null) {
    if (x.bytes !== undefined) wAttr(12, 0, 8);
    if (x.packets !== undefined) wAttr(12, 0, 8);
    if (x.comment !== undefined) wString(byteLength(x.comment), 256);
    if (x.skbmark !== undefined) wAttr(12, 0, 8);
    if (x.skbprio !== undefined) wAttr(8, 0, 4);
    if (x.skbqueue !== undefined) wAttr(8, 0, 2);
  }
  wFinish(e);
}

/**
 * A parsed hash element as ipset's print functions write it into `test` messages
 * (ipset_print_ip, ipset_print_proto_port), measured on 7.17: the address as parsed
 * and printed back (`10.1` -> `10.0.0.1`, `FE80::0001` -> `fe80::1`, brackets gone,
 * host bits kept), `/cidr` unless it is the family's full length, a range as
 * `a-b`; the protocol by name and icmp types by name (`6:80` -> `tcp:80`,
 * `icmp:8/0` -> `icmp:echo-request`), ports as numbers (`http` -> `80`).
 */
export function printedElem(e: Elem, view: SetView): string {
  const v6 = e.family === 6;
  const max = v6 ? 128 : 32;
  let text = v6 ? formatIPv6(e.ip6 as Uint16Array) : formatIPv4(e.ip);
  if (e.cidr >= 0 && e.cidr !== max) text += `/${e.cidr}`;
  if (!v6 && e.ipTo >= 0) text += `-${formatIPv4(e.ipTo)}`;
  if (view.type !== 'hash:ip,port') return text;
  text += `,${protocolName(e.proto) ?? String(e.proto)}:`;
  if (e.proto === IPPROTO_ICMP || e.proto === IPPROTO_ICMPV6) return text + icmpText(e.port, e.proto === IPPROTO_ICMPV6);
  text += String(e.port);
  return e.portTo >= 0 ? `${text}-${e.portTo}` : text;
}

/**
 * ipset.c's check_allowed() for `test`, after the whole line parsed: an option the
 * type's test command does not take fails without a line number and ends the run
 * (measured: the pending batch is lost). hash:net tests take no IP range, hash:ip,port
 * tests no IP range, CIDR or port range; options are checked in attribute order.
 */
function checkTestAllowed(e: Elem, view: SetView): void {
  if (view.type !== 'hash:net' && view.type !== 'hash:ip,port') return;
  let what: string | undefined;
  if (e.ipTo >= 0) what = 'FROM-TO IP range';
  else if (view.type === 'hash:ip,port' && e.cidr >= 0) what = 'IP/CIDR range';
  else if (view.type === 'hash:ip,port' && e.portTo >= 0) what = 'FROM-TO port range';
  if (what === undefined) return;
  const family = e.family === 4 ? 'inet' : 'inet6';
  throw new ParseFailure('raw', `${what} is not allowed in command test with set type ${view.type} and family ${family}`);
}
