/**
 * Name lookups that ipset does through libc (getprotobyname, getservbyname) and its
 * own ICMP type/code tables, answered from embedded copies so results never depend on
 * the machine running the fake.
 */
import { PROTOCOLS_TEXT, SERVICES_TEXT } from './netdb-data.js';

const protoByName = new Map<string, number>();
const protoNameByNumber = new Map<number, string>();
for (const line of PROTOCOLS_TEXT.split('\n')) {
  const [name, num, ...aliases] = line.split(' ');
  if (name === undefined || num === undefined) continue;
  const n = Number(num);
  for (const alias of [name, ...aliases]) if (!protoByName.has(alias)) protoByName.set(alias, n);
  if (!protoNameByNumber.has(n)) protoNameByNumber.set(n, name);
}

const serviceByKey = new Map<string, number>();
for (const line of SERVICES_TEXT.split('\n')) {
  const [name, portProto, ...aliases] = line.split(' ');
  if (name === undefined || portProto === undefined) continue;
  const [port, proto] = portProto.split('/');
  for (const alias of [name, ...aliases]) {
    const key = `${alias}/${proto}`;
    if (!serviceByKey.has(key)) serviceByKey.set(key, Number(port));
  }
}

/** getprotobyname(3): case-sensitive name or alias (`tcp`, `TCP`) → number. */
export function protocolByName(name: string): number | undefined {
  return protoByName.get(name);
}

/** getprotobynumber(3)->p_name: the official name, or undefined (ipset then prints the number). */
export function protocolName(num: number): string | undefined {
  return protoNameByNumber.get(num);
}

/** getservbyname(3) with an exact protocol string. */
export function serviceByName(name: string, proto: string): number | undefined {
  return serviceByKey.get(`${name}/${proto}`);
}

/** Protocol numbers with ports in hash:ip,port (tcp, udp, sctp, udplite). */
export function protocolHasPorts(proto: number): boolean {
  return proto === 6 || proto === 17 || proto === 132 || proto === 136;
}

/** Protocol number of ICMP. */
export const IPPROTO_ICMP = 1;
/** Protocol number of ICMPv6 (`ipv6-icmp`). */
export const IPPROTO_ICMPV6 = 58;

type IcmpName = readonly [name: string, type: number, code: number];

/** ipset's lib/icmp.c table. */
const ICMP_NAMES: readonly IcmpName[] = [
  ['echo-reply', 0, 0],
  ['pong', 0, 0],
  ['network-unreachable', 3, 0],
  ['host-unreachable', 3, 1],
  ['protocol-unreachable', 3, 2],
  ['port-unreachable', 3, 3],
  ['fragmentation-needed', 3, 4],
  ['source-route-failed', 3, 5],
  ['network-unknown', 3, 6],
  ['host-unknown', 3, 7],
  ['network-prohibited', 3, 9],
  ['host-prohibited', 3, 10],
  ['TOS-network-unreachable', 3, 11],
  ['TOS-host-unreachable', 3, 12],
  ['communication-prohibited', 3, 13],
  ['host-precedence-violation', 3, 14],
  ['precedence-cutoff', 3, 15],
  ['source-quench', 4, 0],
  ['network-redirect', 5, 0],
  ['host-redirect', 5, 1],
  ['TOS-network-redirect', 5, 2],
  ['TOS-host-redirect', 5, 3],
  ['echo-request', 8, 0],
  ['ping', 8, 0],
  ['router-advertisement', 9, 0],
  ['router-solicitation', 10, 0],
  ['ttl-zero-during-transit', 11, 0],
  ['ttl-zero-during-reassembly', 11, 1],
  ['ip-header-bad', 12, 0],
  ['required-option-missing', 12, 1],
  ['timestamp-request', 13, 0],
  ['timestamp-reply', 14, 0],
  ['address-mask-request', 17, 0],
  ['address-mask-reply', 18, 0],
];

/** ipset's lib/icmpv6.c table. */
const ICMPV6_NAMES: readonly IcmpName[] = [
  ['no-route', 1, 0],
  ['communication-prohibited', 1, 1],
  ['address-unreachable', 1, 3],
  ['port-unreachable', 1, 4],
  ['packet-too-big', 2, 0],
  ['ttl-zero-during-transit', 3, 0],
  ['ttl-zero-during-reassembly', 3, 1],
  ['bad-header', 4, 0],
  ['unknown-header-type', 4, 1],
  ['unknown-option', 4, 2],
  ['echo-request', 128, 0],
  ['ping', 128, 0],
  ['echo-reply', 129, 0],
  ['pong', 129, 0],
  ['router-solicitation', 133, 0],
  ['router-advertisement', 134, 0],
  ['neighbour-solicitation', 135, 0],
  ['neigbour-solicitation', 135, 0],
  ['neighbour-advertisement', 136, 0],
  ['neigbour-advertisement', 136, 0],
  ['redirect', 137, 0],
];

/**
 * name_to_icmp(): the first table entry of which `text` is a case-insensitive prefix
 * (measured: `icmp:e` ⟶ echo-reply, `icmp:PING` ⟶ echo-request). Returns type<<8|code.
 */
export function icmpByName(text: string, v6: boolean): number | undefined {
  if (text.length === 0) return undefined;
  const lower = text.toLowerCase();
  for (const [name, type, code] of v6 ? ICMPV6_NAMES : ICMP_NAMES) {
    if (name.toLowerCase().startsWith(lower)) return (type << 8) | code;
  }
  return undefined;
}

/** icmp_to_name(): the first name of a type/code, else `type/code`. */
export function icmpText(typeCode: number, v6: boolean): string {
  const type = typeCode >> 8;
  const code = typeCode & 0xff;
  for (const [name, t, c] of v6 ? ICMPV6_NAMES : ICMP_NAMES) if (t === type && c === code) return name;
  return `${type}/${code}`;
}
