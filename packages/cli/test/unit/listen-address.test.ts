import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '@ipsets/core';
import { parseListenAddress } from '../../src/listen-address.js';

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['127.1.2.3:0', { host: '127.1.2.3', port: 0 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['9464', { host: '127.0.0.1', port: 9464 }],
  ])('accepts %s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  // Loopback only meant a kubelet probe or a cluster scraper could never reach the pod.
  it.each([
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464 }],
    ['10.0.0.1:9464', { host: '10.0.0.1', port: 9464 }],
    ['[::]:9464', { host: '::', port: 9464 }],
    ['example.com:80', { host: 'example.com', port: 80 }],
  ])('accepts the explicitly given non-loopback %s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each(['127.0.0.1', '127.0.0.1:', '127.0.0.1:65536', '127.0.0.1:http', ':9464', '::1:9464'])('refuses malformed %s', (text) => {
    let error: unknown;
    try {
      parseListenAddress(text);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain(JSON.stringify(text));
  });
});
