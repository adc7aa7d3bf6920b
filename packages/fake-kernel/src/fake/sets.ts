/**
 * Kernel-side set contents: hash:ip, hash:net, hash:ip,port (inet and inet6) and
 * list:set, with ipset 7.17's add/del/test semantics (docs/ipset-semantics.md §2.5, §3.2, §4) and the
 * bookkeeping that `list` prints (entries, memory, hashsize).
 *
 * Member order is insertion order (the real kernel prints hash order, which depends on
 * a random `initval`): compare hash-set members sorted.
 *
 * Why one file: the two contents a set can have (`HashContent` for the hash types,
 * `ListContent` for list:set) answer the same add/del/test/list operations and share the
 * entry bookkeeping (extensions, sizes, memory) that `list` prints; they are read side by
 * side against ipset's C sources.
 */
import { byteLength, type Elem, type ElemExt, type Family, type SetTypeName, type SetView } from './elements.js';
import { formatIPv4, formatIPv6, isZeroV6, maskV4, maskV6 } from './inet.js';
import { MSG } from './messages.js';
import { IPPROTO_ICMP, IPPROTO_ICMPV6, icmpText, protocolHasPorts, protocolName } from './netdb.js';

/** Options of a hash set as `create` stored them. */
export interface HashOptions {
  family: Family;
  /** Current hashsize (power of two, grows with the set). */
  hashsize: number;
  maxelem: number;
  /** -1 when absent (or the host mask, which the kernel does not print). */
  netmask: number;
  /** Default timeout, -1 when the set has no timeout support. */
  timeout: number;
  counters: boolean;
  comment: boolean;
  skbinfo: boolean;
  forceadd: boolean;
  bucketsize: number;
  initval: number;
}

/** Options of a list:set. */
export interface ListOptions {
  size: number;
  timeout: number;
  counters: boolean;
  comment: boolean;
  skbinfo: boolean;
}

/** Extension values of one stored entry (only for sets created with extensions). */
export interface EntryData {
  nomatch: boolean;
  timeout?: number;
  packets?: bigint;
  bytes?: bigint;
  comment?: string;
  skbmark?: readonly [number, number];
  skbprio?: readonly [number, number];
  skbqueue?: number;
}

/** A stored entry: plain entries are flags (bit 0 = nomatch) to keep a million members cheap. */
export type EntryValue = number | EntryData;

/** What the kernel needs from its set table while applying list:set elements. */
export interface SetLookup {
  /** The slot holding `name`, or undefined. */
  slot(name: string): { content: SetContent; listRefs: number } | undefined;
}

const TWO32 = 4294967296;

function align(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

interface ExtFlags {
  timeout: number;
  counters: boolean;
  comment: boolean;
  skbinfo: boolean;
}

/** ip_set_elem_len(): element size with extension areas. */
function elemLen(base: number, baseAlign: number, o: ExtFlags): number {
  let len = base;
  let al = baseAlign;
  const add = (size: number, a: number): void => {
    if (a > al) al = a;
    len = align(len, a) + size;
  };
  if (o.timeout >= 0) add(8, 8);
  if (o.counters) add(16, 8);
  if (o.comment) add(8, 8);
  if (o.skbinfo) add(16, 4);
  return align(len, al);
}

function hasExtensions(o: ExtFlags): boolean {
  return o.timeout >= 0 || o.counters || o.comment || o.skbinfo;
}

function extError(x: ElemExt | null, o: ExtFlags): string | null {
  if (x === null) return null;
  if (x.timeout !== undefined && o.timeout < 0) return MSG.noTimeout;
  if ((x.packets !== undefined || x.bytes !== undefined) && !o.counters) return MSG.noCounters;
  if (x.comment !== undefined && !o.comment) return MSG.noComment;
  if ((x.skbmark !== undefined || x.skbprio !== undefined || x.skbqueue !== undefined) && !o.skbinfo) {
    return MSG.noSkbinfo;
  }
  return null;
}

function commentCost(c: string | undefined): number {
  return c === undefined ? 0 : 16 + byteLength(c) + 1;
}

function newEntryData(e: Elem, o: ExtFlags, prev?: EntryData): EntryData {
  const x = e.ext;
  const d: EntryData = { nomatch: e.nomatch };
  if (o.timeout >= 0) d.timeout = x?.timeout ?? o.timeout;
  if (o.counters) {
    d.packets = x?.packets ?? prev?.packets ?? 0n;
    d.bytes = x?.bytes ?? prev?.bytes ?? 0n;
  }
  if (o.comment && x?.comment !== undefined) d.comment = x.comment;
  // ip_set_init_skbinfo() copies the line's values (zero when absent) even over an
  // existing entry (-exist), and the kernel reports nonzero values only: so zero is absent.
  if (o.skbinfo && x !== null) {
    const mark = x.skbmark;
    const prio = x.skbprio;
    if (mark !== undefined && (mark[0] !== 0 || mark[1] !== 0)) d.skbmark = mark;
    if (prio !== undefined && (prio[0] !== 0 || prio[1] !== 0)) d.skbprio = prio;
    if (x.skbqueue !== undefined && x.skbqueue !== 0) d.skbqueue = x.skbqueue;
  }
  return d;
}

function extText(d: EntryData, o: ExtFlags, withNomatch: boolean): string {
  let s = '';
  if (o.timeout >= 0) s += ` timeout ${d.timeout ?? 0}`;
  if (withNomatch && d.nomatch) s += ' nomatch';
  if (o.counters) s += ` packets ${d.packets ?? 0n} bytes ${d.bytes ?? 0n}`;
  if (d.comment !== undefined) s += ` comment "${d.comment}"`;
  if (d.skbmark !== undefined) {
    const [m, mask] = d.skbmark;
    s += mask === 0xffffffff ? ` skbmark 0x${m.toString(16)}` : ` skbmark 0x${m.toString(16)}/0x${mask.toString(16)}`;
  }
  if (d.skbprio !== undefined) s += ` skbprio ${d.skbprio[0].toString(16)}:${d.skbprio[1].toString(16)}`;
  if (d.skbqueue !== undefined) s += ` skbqueue ${d.skbqueue}`;
  return s;
}

/** Contents of a hash:ip / hash:net / hash:ip,port set. */
export class HashContent {
  readonly kind = 'hash' as const;
  /** Keys: int32 address (v4 hash:ip, v4 hash:net /32), 2^32·(cidr+1)+ip (v4 nets), printed text otherwise. */
  readonly entries = new Map<number | string, EntryValue>();
  /** hash:net: entries per prefix length (for longest-prefix `test`). */
  readonly cidrCounts = new Int32Array(129);
  commentBytes = 0;
  /** What userspace learns about this set from the kernel (type and family). */
  readonly view: SetView;
  private readonly plain: boolean;
  private readonly dsize: number;

  constructor(
    readonly type: Exclude<SetTypeName, 'list:set'>,
    readonly opts: HashOptions,
  ) {
    this.view = { type, family: opts.family };
    this.plain = !hasExtensions(opts);
    const v4 = opts.family === 4;
    const base =
      type === 'hash:ip' ? (v4 ? 4 : 16) : v4 ? 8 : 20; // elem struct sizes (hash:net / hash:ip,port v4 = 8, v6 = 20)
    this.dsize = elemLen(base, 4, opts);
  }

  get size(): number {
    return this.entries.size;
  }

  /** `Size in memory:` — docs/ipset-semantics.md §5.2's no-collision formula plus comment strings. */
  memsize(): number {
    const v4 = this.opts.family === 4;
    const base0 =
      this.type === 'hash:ip' ? (v4 ? 216 : 224) : this.type === 'hash:net' ? (v4 ? 456 : 1240) : v4 ? 216 : 232;
    const bits = Math.log2(this.opts.hashsize);
    const regions = bits > 10 ? 2 ** (bits - 10) : 1;
    return base0 + 24 * (regions - 1) + this.entries.size * (32 + 2 * this.dsize) + this.commentBytes;
  }

  /** Applies one add/del element; returns the kernel error text or null. */
  apply(e: Elem, add: boolean, exist: boolean): string | null {
    if (e.family !== this.opts.family) return MSG.protocolError;
    const xe = extError(e.ext, this.opts);
    if (xe !== null) return xe;
    if (this.opts.family === 6) return this.apply6(e, add, exist);
    switch (this.type) {
      case 'hash:ip':
        return this.applyIp4(e, add, exist);
      case 'hash:net':
        return this.applyNet4(e, add, exist);
      default:
        return this.applyIpPort4(e, add, exist);
    }
  }

  private op(key: number | string, cidr: number, e: Elem, add: boolean, exist: boolean): string | null {
    const cur = this.entries.get(key);
    if (!add) {
      if (cur === undefined) return exist ? null : MSG.elemMissing;
      this.remove(key, cur, cidr);
      return null;
    }
    if (cur !== undefined) {
      if (!exist) return MSG.elemExists;
      if (this.plain) this.entries.set(key, e.nomatch ? 1 : 0);
      else {
        const prev = cur as EntryData;
        const next = newEntryData(e, this.opts, prev);
        this.commentBytes += commentCost(next.comment) - commentCost(prev.comment);
        this.entries.set(key, next);
      }
      return null;
    }
    if (this.entries.size >= this.opts.maxelem) {
      if (!this.opts.forceadd || this.entries.size === 0) return MSG.hashFull;
      // forceadd evicts a random entry of the bucket; the fake evicts the oldest one.
      const [oldKey, oldVal] = this.entries.entries().next().value as [number | string, EntryValue];
      this.remove(oldKey, oldVal, this.cidrOfKey(oldKey));
    }
    if (this.plain) this.entries.set(key, e.nomatch ? 1 : 0);
    else {
      const d = newEntryData(e, this.opts);
      this.commentBytes += commentCost(d.comment);
      this.entries.set(key, d);
    }
    this.cidrCounts[cidr] = (this.cidrCounts[cidr] ?? 0) + 1;
    // Growth stand-in: the kernel doubles when a bucket overflows (random); ~3 entries per bucket matches docs/ipset-semantics.md §5.1.
    while (this.entries.size > 3 * this.opts.hashsize && this.opts.hashsize < 2 ** 30) this.opts.hashsize *= 2;
    return null;
  }

  private remove(key: number | string, cur: EntryValue, cidr: number): void {
    this.entries.delete(key);
    this.cidrCounts[cidr] = (this.cidrCounts[cidr] ?? 0) - 1;
    if (typeof cur !== 'number') this.commentBytes -= commentCost(cur.comment);
  }

  private cidrOfKey(key: number | string): number {
    if (typeof key === 'number') return key < TWO32 ? 32 : Math.floor(key / TWO32) - 1;
    if (this.type !== 'hash:net') return this.opts.family === 4 ? 32 : 128;
    const slash = key.indexOf('/');
    return slash < 0 ? (this.opts.family === 4 ? 32 : 128) : Number(key.slice(slash + 1));
  }

  private applyIp4(e: Elem, add: boolean, exist: boolean): string | null {
    const nm = this.opts.netmask >= 0 ? maskV4(this.opts.netmask) : 0xffffffff;
    let ip = (e.ip & nm) >>> 0;
    if (ip === 0) return MSG.nullElement;
    if (e.ipTo < 0 && e.cidr < 0) return this.op(ip | 0, 32, e, add, exist);
    let to = ip;
    if (e.ipTo >= 0) {
      to = e.ipTo;
      if (ip > to) {
        if (to === 0) return MSG.nullElement;
        [ip, to] = [to, ip];
      }
    } else {
      if (e.cidr === 0 || e.cidr > 32) return MSG.invalidCidr;
      const m = maskV4(e.cidr);
      ip = (ip & m) >>> 0;
      to = (ip | ~m) >>> 0;
    }
    const step = this.opts.netmask >= 0 && this.opts.netmask < 32 ? 2 ** (32 - this.opts.netmask) : 1;
    for (let x = ip; x <= to; x += step) {
      const err = this.op(x | 0, 32, e, add, exist);
      if (err !== null) return err;
    }
    return null;
  }

  private applyNet4(e: Elem, add: boolean, exist: boolean): string | null {
    if (e.cidr === 0 || e.cidr > 32) return MSG.invalidCidr;
    if (e.ipTo < 0) {
      const cidr = e.cidr < 0 ? 32 : e.cidr;
      const ip = (e.ip & maskV4(cidr)) >>> 0;
      return this.op(netKey4(ip, cidr), cidr, e, add, exist);
    }
    let ip = e.ip;
    let to = e.ipTo;
    if (to < ip) [ip, to] = [to, ip];
    if (ip === 0 && to === 0xffffffff) return MSG.wholeSpace;
    for (;;) {
      const cidr = rangeToCidr(ip, to);
      const err = this.op(netKey4(ip, cidr), cidr, e, add, exist);
      if (err !== null) return err;
      const last = ip + 2 ** (32 - cidr) - 1;
      if (last >= to) return null;
      ip = last + 1;
    }
  }

  private applyIpPort4(e: Elem, add: boolean, exist: boolean): string | null {
    if (e.proto === 0) return MSG.invalidProto;
    const withPorts = protocolHasPorts(e.proto);
    const port = withPorts || e.proto === IPPROTO_ICMP ? e.port : 0;
    let ip = e.ip;
    let to = ip;
    if (e.ipTo >= 0) {
      to = e.ipTo;
      if (ip > to) [ip, to] = [to, ip];
    } else if (e.cidr >= 0) {
      if (e.cidr === 0 || e.cidr > 32) return MSG.invalidCidr;
      const m = maskV4(e.cidr);
      ip = (ip & m) >>> 0;
      to = (ip | ~m) >>> 0;
    }
    if (ip === 0) return MSG.invalidArgument;
    let pFrom = port;
    let pTo = port;
    if (withPorts && e.portTo >= 0) {
      pTo = e.portTo;
      if (pFrom > pTo) [pFrom, pTo] = [pTo, pFrom];
    }
    const proto = protoText(e.proto);
    for (let x = ip; x <= to; x++) {
      const ipText = formatIPv4(x);
      for (let p = pFrom; p <= pTo; p++) {
        const key = `${ipText},${proto}:${portText(e.proto, p, false)}`;
        const err = this.op(key, 32, e, add, exist);
        if (err !== null) return err;
      }
    }
    return null;
  }

  private apply6(e: Elem, add: boolean, exist: boolean): string | null {
    const ip6 = Uint16Array.from(e.ip6 as Uint16Array);
    if (this.type === 'hash:net') {
      if (e.cidr === 0) return MSG.invalidCidr;
      const cidr = e.cidr < 0 ? 128 : e.cidr;
      maskV6(ip6, cidr);
      const text = formatIPv6(ip6);
      return this.op(cidr === 128 ? text : `${text}/${cidr}`, cidr, e, add, exist);
    }
    if (this.opts.netmask >= 0) maskV6(ip6, this.opts.netmask);
    if (this.type === 'hash:ip') {
      if (isZeroV6(ip6)) return MSG.nullElement;
      return this.op(formatIPv6(ip6), 128, e, add, exist);
    }
    if (e.proto === 0) return MSG.invalidProto;
    if (isZeroV6(ip6)) return MSG.invalidArgument;
    const withPorts = protocolHasPorts(e.proto);
    const port = withPorts || e.proto === IPPROTO_ICMPV6 ? e.port : 0;
    let pFrom = port;
    let pTo = port;
    if (withPorts && e.portTo >= 0) {
      pTo = e.portTo;
      if (pFrom > pTo) [pFrom, pTo] = [pTo, pFrom];
    }
    const ipText = formatIPv6(ip6);
    const proto = protoText(e.proto);
    for (let p = pFrom; p <= pTo; p++) {
      const err = this.op(`${ipText},${proto}:${portText(e.proto, p, true)}`, 128, e, add, exist);
      if (err !== null) return err;
    }
    return null;
  }

  /** `test`: true when the element is in the set (nomatch entries test as absent). */
  test(e: Elem): boolean {
    if (e.family !== this.opts.family) return false;
    if (this.type === 'hash:net') {
      const v4 = this.opts.family === 4;
      const max = v4 ? 32 : 128;
      const lookup = (cidr: number): EntryValue | undefined => {
        if (v4) return this.entries.get(netKey4((e.ip & maskV4(cidr)) >>> 0, cidr));
        const w = maskV6(Uint16Array.from(e.ip6 as Uint16Array), cidr);
        const t = formatIPv6(w);
        return this.entries.get(cidr === 128 ? t : `${t}/${cidr}`);
      };
      const isMatch = (v: EntryValue): boolean => (typeof v === 'number' ? (v & 1) === 0 : !v.nomatch);
      // An explicit /0 matches nothing (ipset 7.17: `test n 10.0.0.1/0` is "NOT in set", no error).
      if (e.cidr === 0) return false;
      if (e.cidr > 0 && e.cidr < max) {
        const v = lookup(e.cidr);
        return v !== undefined && isMatch(v);
      }
      for (let c = max; c >= 1; c--) {
        if (this.cidrCounts[c] === 0) continue;
        const v = lookup(c);
        if (v !== undefined) return isMatch(v);
      }
      return false;
    }
    if (this.opts.family === 6) {
      const ip6 = Uint16Array.from(e.ip6 as Uint16Array);
      if (this.opts.netmask >= 0) maskV6(ip6, this.opts.netmask);
      const t = formatIPv6(ip6);
      if (this.type === 'hash:ip') return this.entries.has(t);
      return this.entries.has(`${t},${protoText(e.proto)}:${portText(e.proto, e.port, true)}`);
    }
    if (this.type === 'hash:ip') {
      const nm = this.opts.netmask >= 0 ? maskV4(this.opts.netmask) : 0xffffffff;
      return this.entries.has((e.ip & nm) | 0);
    }
    const port = protocolHasPorts(e.proto) || e.proto === IPPROTO_ICMP ? e.port : 0;
    return this.entries.has(`${formatIPv4(e.ip)},${protoText(e.proto)}:${portText(e.proto, port, false)}`);
  }

  flush(): void {
    this.entries.clear();
    this.cidrCounts.fill(0);
    this.commentBytes = 0;
  }

  /** Appends `prefix + member + "\n"` per member to `out` (the save/list hot path). */
  appendLines(prefix: string, out: string[]): void {
    const o = this.opts;
    let chunk = '';
    let n = 0;
    for (const [key, value] of this.entries) {
      const text = this.keyText(key);
      const line =
        typeof value === 'number' ? ((value & 1) === 1 ? `${text} nomatch` : text) : text + extText(value, o, true);
      chunk += `${prefix}${line}\n`;
      // Join in slices so that one member list never becomes a deep rope.
      if (++n === 1024) {
        out.push(chunk);
        chunk = '';
        n = 0;
      }
    }
    if (chunk !== '') out.push(chunk);
  }

  /** Members as `ipset save` prints them after `add NAME `, insertion order. */
  *memberLines(): Generator<string> {
    const o = this.opts;
    for (const [key, value] of this.entries) {
      const text = this.keyText(key);
      if (typeof value === 'number') yield (value & 1) === 1 ? `${text} nomatch` : text;
      else yield text + extText(value, o, true);
    }
  }

  /** Installs a stored entry (state snapshots); keeps the counters in step. */
  restoreEntry(key: number | string, value: EntryValue): void {
    this.entries.set(key, value);
    const c = this.cidrOfKey(key);
    this.cidrCounts[c] = (this.cidrCounts[c] ?? 0) + 1;
    if (typeof value !== 'number') this.commentBytes += commentCost(value.comment);
  }

  /** Members without extension text (for state snapshots and tests). */
  keyText(key: number | string): string {
    if (typeof key === 'string') return key;
    if (key < TWO32) return formatIPv4(key >>> 0);
    const cidr = Math.floor(key / TWO32) - 1;
    return `${formatIPv4(key % TWO32)}/${cidr}`;
  }
}

function netKey4(ip: number, cidr: number): number {
  return cidr === 32 ? ip | 0 : TWO32 * (cidr + 1) + ip;
}

/** ip_set_range_to_cidr(): the largest block starting at `from` that stays within `to`. */
function rangeToCidr(from: number, to: number): number {
  for (let cidr = 1; cidr <= 32; cidr++) {
    const size = 2 ** (32 - cidr);
    if (from % size === 0 && from + size - 1 <= to) return cidr;
  }
  return 32;
}

/** Protocol as ipset prints it (`tcp`, `ipv6-icmp`, or the number). */
export function protoText(proto: number): string {
  return protocolName(proto) ?? String(proto);
}

function portText(proto: number, port: number, v6: boolean): string {
  if (proto === IPPROTO_ICMP && !v6) return icmpText(port, false);
  if (proto === IPPROTO_ICMPV6 && v6) return icmpText(port, true);
  return String(port);
}

/** Contents of a list:set: member names in list order. */
export class ListContent {
  readonly kind = 'list' as const;
  readonly type = 'list:set' as const;
  readonly members: string[] = [];
  readonly data = new Map<string, EntryData>();
  readonly view: SetView = { type: 'list:set', family: 4 };
  private readonly dsize: number;

  constructor(readonly opts: ListOptions) {
    this.dsize = elemLen(42, 8, opts);
  }

  get size(): number {
    return this.members.length;
  }

  memsize(): number {
    let comments = 0;
    for (const d of this.data.values()) comments += commentCost(d.comment);
    return 80 + this.members.length * this.dsize + comments;
  }

  /** Applies one add/del element (list:set semantics, docs/ipset-semantics.md §4). */
  apply(e: Elem, add: boolean, exist: boolean, sets: SetLookup): string | null {
    const xe = extError(e.ext, this.opts);
    if (xe !== null) return xe;
    const name = e.name as string;
    const member = sets.slot(name);
    if (member === undefined) return MSG.listMemberMissing;
    if (member.content.kind === 'list') return MSG.listLoop;
    if (e.ref !== null && sets.slot(e.ref) === undefined) return MSG.listRefMissing;
    const idx = this.members.indexOf(name);
    if (add) {
      if (idx >= 0) {
        if (!exist) return MSG.elemExists;
        if (hasExtensions(this.opts)) this.data.set(name, newEntryData(e, this.opts, this.data.get(name)));
        return null;
      }
      let at = this.members.length;
      if (e.ref !== null) {
        const refIdx = this.members.indexOf(e.ref);
        if (refIdx < 0) return MSG.listRefNotInList;
        at = e.before ? refIdx : refIdx + 1;
      }
      this.members.splice(at, 0, name);
      if (hasExtensions(this.opts)) this.data.set(name, newEntryData(e, this.opts));
      member.listRefs++;
      return null;
    }
    if (idx < 0) return e.ref !== null ? MSG.listRefNotInList : exist ? null : MSG.elemMissing;
    if (e.ref !== null) {
      const neighbour = this.members[e.before ? idx + 1 : idx - 1];
      if (neighbour !== e.ref) return MSG.listRefNotInList;
    }
    this.members.splice(idx, 1);
    this.data.delete(name);
    member.listRefs--;
    return null;
  }

  test(e: Elem): boolean {
    const idx = this.members.indexOf(e.name as string);
    if (idx < 0) return false;
    if (e.ref === null) return true;
    return this.members[e.before ? idx + 1 : idx - 1] === e.ref;
  }

  /** Empties the list, releasing its members' references. */
  flush(sets: SetLookup): void {
    for (const m of this.members) {
      const s = sets.slot(m);
      if (s !== undefined) s.listRefs--;
    }
    this.members.length = 0;
    this.data.clear();
  }

  /** Appends `prefix + member + "\n"` per member to `out`. */
  appendLines(prefix: string, out: string[]): void {
    for (const m of this.memberLines()) out.push(`${prefix}${m}\n`);
  }

  *memberLines(): Generator<string> {
    const ext = hasExtensions(this.opts);
    for (const m of this.members) {
      const d = this.data.get(m);
      yield ext && d !== undefined ? m + extText(d, this.opts, false) : m;
    }
  }
}

/** Either kind of contents. */
export type SetContent = HashContent | ListContent;
