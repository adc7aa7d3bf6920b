import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OWNER,
  fnv1a32,
  isOwnedSetName,
  kernelName,
  sha256Base36,
  sha256Hex,
  utf8Bytes,
  validateKernelSetName,
  validateOwner,
  validateOwnerPrefix,
} from '../../../src/model/naming.js';
import { isIpsetsError } from '../../../src/errors.js';

// docs/reference-behaviour.md §a.2, both tables.
const VECTORS: ReadonlyArray<[prefixed: string, sha: string, fnv: string | undefined]> = [
  ['ns-test', 'azure-npm-343gyx4g1wf87lwlewvk', 'azure-npm-3863441321'],
  ['podlabel-x:YMaaIZ', 'azure-npm-61b0uqiiz2delucbmvi2', 'azure-npm-2900316864'],
  ['ns-msobb-target', 'azure-npm-42xi2gy762uhahnxfutd', 'azure-npm-2900316864'],
  ['ns-test-ns-set', 'azure-npm-48454gha3irmkdh1wlh1', 'azure-npm-3382169694'],
  ['empty-emptyhashset', 'azure-npm-ngnfz42mtqjbw8ffiwmj', 'azure-npm-3530799710'],
  ['podlabel-app:frontend', 'azure-npm-5x93inf57axpuoyzvxsm', 'azure-npm-3613997434'],
  ['podlabel-test-keyPod-set', 'azure-npm-2vldtl7b97d0eibs0kde', undefined],
  ['podlabel-test-kvPod-set', 'azure-npm-3qd7tksw0h90z6uep8kn', undefined],
  ['namedport:test-namedport-set', 'azure-npm-5qab0kl2v6a9epjq3xrj', undefined],
  ['cidr-test-cidr-set', 'azure-npm-2nrzjugq2oncjhiu6vo5', undefined],
  ['nslabel-test-keyNS-list', 'azure-npm-19qo56net3a0ya78prsd', undefined],
  ['nslabel-test-kvNS-list', 'azure-npm-3x4oj4iblb58m2kk06yl', undefined],
  ['nestedlabel-test-nestedlabel-list', 'azure-npm-29wuj96ap409wvsefn01', undefined],
  ['ns-test-set1', 'azure-npm-2kzvue790g28yjjz6nd0', undefined],
  ['podlabel-test-set2', 'azure-npm-43wm71s1oq976hxf8i60', undefined],
  ['namedport:test-set3', 'azure-npm-5qi61nzpcl42druyw59j', undefined],
  ['nslabel-test-list1', 'azure-npm-292s6gzf585hinsi5iqi', undefined],
  ['unknown', 'azure-npm-4fx0qmwtsypfeuq8loh1', undefined],
];

describe('kernelName', () => {
  it.each(VECTORS)('%s → %s (sha256-base36)', (prefixed, sha) => {
    expect(kernelName(prefixed)).toBe(sha);
    expect(kernelName(prefixed, { scheme: 'sha256-base36', owner: DEFAULT_OWNER })).toBe(sha);
  });

  it.each(VECTORS.filter((v) => v[2] !== undefined))('%s → fnv32 %s', (prefixed, _sha, fnv) => {
    expect(kernelName(prefixed, { scheme: 'fnv32' })).toBe(fnv);
  });

  it('the known fnv32 collision collides and sha256-base36 separates it', () => {
    expect(kernelName('podlabel-x:YMaaIZ', { scheme: 'fnv32' })).toBe(kernelName('ns-msobb-target', { scheme: 'fnv32' }));
    expect(kernelName('podlabel-x:YMaaIZ')).not.toBe(kernelName('ns-msobb-target'));
  });

  it('sha256-base36 names are always 30 characters with the default owner', () => {
    for (let i = 0; i < 500; i++) expect(kernelName(`podlabel-app:${i}`)).toHaveLength(30);
  });

  it('uses a configurable owner prefix', () => {
    expect(kernelName('ns-test', { owner: 'kube-' })).toBe('kube-343gyx4g1wf87lwlewvk');
    expect(kernelName('ns-test', { owner: 'kube-', scheme: 'fnv32' })).toBe('kube-3863441321');
  });

  it.each([
    ['azure-npm-v2-', 'sha256-base36'], // 13 + 20 = 33
    ['a-very-long-owner-pfx-', 'fnv32'], // 22 + 10 = 32
  ] as const)('refuses owner %s with %s because names would exceed 31 characters', (owner, scheme) => {
    expect(() => kernelName('ns-test', { owner, scheme })).toThrow(/exceed 31 characters/);
    try {
      kernelName('ns-test', { owner, scheme });
    } catch (error) {
      expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('accepts the longest owner that fits', () => {
    expect(kernelName('ns-test', { owner: 'azure-npm1-' })).toHaveLength(31);
    expect(() => validateOwner(`${'a'.repeat(20)}-`, 'fnv32')).not.toThrow();
  });

  it.each(['', '-npm-', 'my npm-', 'a#b-', 'q"-'])('refuses owner %j', (owner) => {
    expect(() => kernelName('ns-test', { owner })).toThrow(/invalid owner prefix/);
  });

  it('refuses an unknown scheme', () => {
    expect(() => kernelName('ns-test', { scheme: 'md5' as never })).toThrow(/unknown naming scheme "md5"/);
  });
});

describe('digests', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    ['a'.repeat(1000), '41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3'],
    ['ns-test', '7cee884e' /* prefix from docs/reference-behaviour.md §a.2 */],
  ])('sha256(%j) starts with the reference digest', (input, hex) => {
    expect(sha256Hex(input).startsWith(hex)).toBe(true);
    expect(sha256Hex(input)).toHaveLength(64);
  });

  it('hashes non-ASCII as UTF-8', () => {
    expect(Array.from(utf8Bytes('é€😀'))).toEqual([0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]);
    expect(sha256Hex('é')).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });

  it('fnv1a32 matches the reference offsets', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('ns-test')).toBe(3863441321);
  });

  it('base36 digest keeps the most significant 20 digits', () => {
    expect(sha256Base36('ns-test')).toBe('343gyx4g1wf87lwlewvk');
    expect(sha256Base36('empty-emptyhashset')).toBe('ngnfz42mtqjbw8ffiwmj');
  });
});

describe('validateKernelSetName', () => {
  it.each(['azure-npm-343gyx4g1wf87lwlewvk', 'a', 'a'.repeat(31), 'x_y.z:w/1', 'a-b_c.d:e/f'])('accepts %j', (name) => {
    expect(() => validateKernelSetName(name)).not.toThrow();
  });
  it.each(['', 'a'.repeat(32), '-x', 'a b', 'a\nb', '#x', 'a"b', 'a#b'])('refuses %j', (name) => {
    expect(() => validateKernelSetName(name)).toThrow(/Invalid set name/);
  });
});

describe('ownership is a namespace, not a substring (an owner "f" destroyed the foreign sets foo and fw-ref)', () => {
  it.each(['f', 'k', 'kub', 'kube', 'azure-npm', 'azure-npmX'])('refuses owner %j: under 4 characters or no trailing separator', (owner) => {
    expect(() => validateOwner(owner)).toThrow(/invalid owner prefix/);
    expect(() => validateOwnerPrefix(owner)).toThrow(/invalid owner prefix/);
  });

  it.each(['azure-npm-', 'kube-', 'npm_', 'a.b.', 'ns::'])('accepts owner %j', (owner) => {
    expect(() => validateOwner(owner)).not.toThrow();
    expect(() => validateOwnerPrefix(owner)).not.toThrow();
  });

  it('owns only the prefix followed by one or more of 0-9 and a-z', () => {
    const owner = DEFAULT_OWNER;
    expect(isOwnedSetName('azure-npm-343gyx4g1wf87lwlewvk', owner)).toBe(true);
    expect(isOwnedSetName('azure-npm-3863441321', owner)).toBe(true);
    expect(isOwnedSetName('azure-npm-x', owner)).toBe(true);
    for (const foreign of ['azure-npm-', 'azure-npm-ABC', 'azure-npm-x.y', 'azure-npm-x-y', 'azure-npm-x y', 'azure-npm', 'xazure-npm-1', 'foo', 'fw-ref', '']) {
      expect(isOwnedSetName(foreign, owner)).toBe(false);
    }
    // Longer than any kernel name: not a set anyone could own.
    expect(isOwnedSetName(`azure-npm-${'a'.repeat(22)}`, owner)).toBe(false);
    expect(isOwnedSetName(`azure-npm-${'a'.repeat(21)}`, owner)).toBe(true);
    expect(isOwnedSetName('foo', '')).toBe(false);
  });
});
