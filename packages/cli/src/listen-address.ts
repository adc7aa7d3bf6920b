/**
 * The address the agent serves metrics and probes on (`--metrics-bind-address`). The
 * default is loopback (this node's scraper only); any other address is taken when
 * given explicitly, as kube-proxy's flag of the same name does, so that a kubelet
 * probe or a cluster scraper can reach the pod.
 */
import { IpsetsError, quote } from '@ipsets/core';

/** A host and port to listen on. */
export interface ListenAddress {
  /** An IPv4 or IPv6 address, or a host name such as `localhost`. */
  readonly host: string;
  /** 0 lets the system choose. */
  readonly port: number;
}

const EXPECTED = 'expected an address and port like 127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464 or localhost:9464';

/**
 * Parses `HOST:PORT` (IPv6 in brackets). A bare port means 127.0.0.1.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for malformed text (no port, a port out of range, an empty host).
 */
export function parseListenAddress(text: string): ListenAddress {
  let host: string;
  let portText: string;
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracket) {
    host = bracket[1]!;
    portText = bracket[2]!;
  } else if (/^\d+$/.test(text)) {
    host = '127.0.0.1';
    portText = text;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon <= 0 || text.indexOf(':') !== colon) {
      throw new IpsetsError('INVALID_ARGUMENT', `metrics address ${quote(text)} has no port; ${EXPECTED}`);
    }
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
  }
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) {
    throw new IpsetsError('INVALID_ARGUMENT', `metrics port ${quote(portText)} in ${quote(text)} is not 0-65535; ${EXPECTED}`);
  }
  if (host === '' || /[\s/]/.test(host)) {
    throw new IpsetsError('INVALID_ARGUMENT', `metrics host ${quote(host)} in ${quote(text)} is not an address; ${EXPECTED}`);
  }
  return { host, port };
}
