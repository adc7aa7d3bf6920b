import { describe, expect, it } from 'vitest';
import { classifyIpsetError, type ClassifyOptions } from '../../../src/session/classify.js';
import type { ErrorSide, IpsetErrorKind } from '../../../src/types.js';

const V = 'ipset v7.17: ';

/** Every message of docs/ipset-semantics.md §3.1/§3.2 (after `Error in line N: `), verbatim, with its kind and side. */
const lineMessages: [message: string, kind: IpsetErrorKind, side: ErrorSide, options?: ClassifyOptions][] = [
  // 3.1 set level
  ['The set with the given name does not exist', 'set-missing', 'userspace', { op: 'add' }],
  ['The set with the given name does not exist', 'set-missing', 'userspace', { op: 'del' }],
  ['The set with the given name does not exist', 'set-missing', 'userspace', { op: 'test' }],
  ['The set with the given name does not exist', 'set-missing', 'kernel', { op: 'flush' }],
  ['The set with the given name does not exist', 'set-missing', 'kernel', { op: 'destroy' }],
  ['The set with the given name does not exist', 'set-missing', 'kernel', { op: 'rename' }],
  ['The set with the given name does not exist', 'set-missing', 'kernel', { op: 'swap' }],
  ['The set with the given name does not exist', 'set-missing', 'kernel'],
  ['Sets cannot be swapped: the second set does not exist', 'set-missing', 'kernel'],
  ['The sets cannot be swapped: their type does not match', 'unknown', 'kernel'],
  ['Set cannot be created: set with the same name already exists', 'set-exists', 'kernel'],
  ["Syntax error: typename 'hash:foo' is unknown", 'syntax', 'userspace'],
  ['Set cannot be destroyed: it is in use by a kernel component', 'set-in-use', 'kernel'],
  ['Set cannot be renamed: it is in use by another system', 'set-in-use', 'kernel'],
  ['Set cannot be renamed: a set with the new name already exists', 'set-exists', 'kernel'],
  ["Syntax error: setname 'abcdefghijabcdefghijabcdefghijab' is longer than 31 characters", 'syntax', 'userspace'],
  ['Kernel error received: maximal number of sets reached, cannot create more.', 'max-sets', 'kernel'],
  ['Kernel error received: Cannot allocate memory', 'unknown', 'kernel'],
  ["Syntax error: 'abc' is invalid as number", 'syntax', 'userspace'],
  // 3.2 element level
  ["Element cannot be added to the set: it's already added", 'element-exists', 'kernel'],
  ["Element cannot be deleted from the set: it's not added", 'element-missing', 'kernel'],
  ['Hash is full, cannot add more elements', 'hash-full', 'kernel'],
  ['Null-valued element, cannot be stored in a hash type of set', 'unknown', 'kernel'],
  ['The value of the CIDR parameter of the IP address is invalid', 'unknown', 'kernel'],
  ['Invalid range, covers the whole address space', 'unknown', 'kernel'],
  ['Invalid protocol specified', 'unknown', 'kernel'],
  ['Timeout cannot be used: set was created without timeout support', 'unknown', 'kernel'],
  ['Comment cannot be used: set was created without comment support', 'unknown', 'kernel'],
  ['Set to be added/deleted/tested as element does not exist.', 'member-set-missing', 'kernel'],
  ['Sets with list:set type cannot be added to the set.', 'unknown', 'kernel'],
  ["The set to which you referred with 'before' or 'after' is not added to the set.", 'unknown', 'kernel'],
  ['Syntax error: cannot parse 1.1.1.300: resolving to IPv4 address failed', 'syntax', 'userspace'],
  ['Syntax error: cannot parse 2001:db8::1: resolving to IPv4 address failed', 'syntax', 'userspace'],
  ['Syntax error: cannot parse 10.0.0.1: resolving to IPv6 address failed', 'syntax', 'userspace'],
  ['Syntax error: cannot parse 2001:db8::: resolving to IPv4 address failed', 'syntax', 'userspace'],
  ['Syntax error: cannot parse no: resolving to IPv4 address failed', 'syntax', 'userspace'],
  ["Syntax error: '33' is out of range 0-32", 'syntax', 'userspace'],
  ["Syntax error: '129' is out of range 0-128", 'syntax', 'userspace'],
  ["Syntax error: '-1' is out of range 0-255", 'syntax', 'userspace'],
  ["Syntax error: '08' is invalid as number", 'syntax', 'userspace'],
  ['Syntax error: plain IP address must be supplied: 2001:db8::/126', 'syntax', 'userspace'],
  ['Syntax error: IP address or IP/cidr must be specified: 2001:db8::1-2001:db8::5', 'syntax', 'userspace'],
  ['Syntax error: Second element is missing from 10.0.0.1.', 'syntax', 'userspace'],
  ['Syntax error: Second element is missing from 10.0.0.1,.', 'syntax', 'userspace'],
  [
    'Syntax error: Two elem separators in 10.0.0.1,80,90, but settype hash:ip,port supports one.',
    'syntax',
    'userspace',
  ],
  ["Syntax error: cannot parse 'foo' as a protocol", 'syntax', 'userspace'],
  ['Syntax error: Protocol gre can be used with pseudo port value 0 only.', 'syntax', 'userspace'],
  ['Cannot parse 8 as an ICMP type/code.', 'syntax', 'userspace'],
  ["Syntax error: '256' is out of range 0-255", 'syntax', 'userspace'],
  ['Invalid add command: missing setname', 'syntax', 'userspace'],
  // beyond docs/ipset-semantics.md §3: another process is dumping the set
  ['Kernel error received: Device or resource busy', 'busy', 'kernel'],
  ['Kernel error received: ipset protocol error', 'unknown', 'kernel'],
];

describe('classifyIpsetError: messages with a line number (docs/ipset-semantics.md §3.1, §3.2)', () => {
  it.each(lineMessages)('%j → %s (%s) %j', (message, kind, side, options) => {
    const result = classifyIpsetError(`${V}Error in line 7: ${message}\n`, { exitCode: 1, ...options });
    expect(result).toEqual({ kind, side, line: 7, message, transient: kind === 'busy' });
  });

  it('classifies the same messages outside restore mode (docs/ipset-semantics.md §3.5): no line', () => {
    for (const [message, kind, side, options] of lineMessages) {
      const result = classifyIpsetError(`${V}${message}\n`, { exitCode: 1, ...options });
      expect(result).toEqual({ kind, side, message, transient: kind === 'busy' });
    }
  });

  it('reads multi-digit line numbers and tolerates CRLF and no version prefix', () => {
    expect(classifyIpsetError('Error in line 10002: Hash is full, cannot add more elements\r\n')).toEqual({
      kind: 'hash-full',
      side: 'kernel',
      line: 10002,
      message: 'Hash is full, cannot add more elements',
      transient: false,
    });
  });

  it('finds the line number on any stderr line, and the message on that line (the session used to search the whole stderr with a regex of its own, the classifier only the first line)', () => {
    const stderr = `warning: something first\n${V}Error in line 5: Hash is full, cannot add more elements\n`;
    expect(classifyIpsetError(stderr, { exitCode: 1 })).toMatchObject({ kind: 'hash-full', side: 'kernel', line: 5 });
  });

  it('keeps a line number that is not a number as lineText, so that the session can say so', () => {
    const result = classifyIpsetError(`${V}Error in line x1: Hash is full, cannot add more elements\n`, { exitCode: 1 });
    expect(result).toEqual({ kind: 'hash-full', side: 'kernel', lineText: 'x1', message: 'Hash is full, cannot add more elements', transient: false });
  });

  it('decides the side of "does not exist" from the line\'s command: userspace on add and del (pending batch lost), kernel on the others', () => {
    const stderr = `${V}Error in line 2: The set with the given name does not exist\n`;
    expect(classifyIpsetError(stderr, { op: 'add' }).side).toBe('userspace');
    expect(classifyIpsetError(stderr, { op: 'del' }).side).toBe('userspace');
    for (const op of ['create', 'flush', 'destroy', 'swap'] as const) expect(classifyIpsetError(stderr, { op }).side).toBe('kernel');
  });

  it('busy is transient', () => {
    const result = classifyIpsetError(`${V}Error in line 3: Kernel error received: Device or resource busy\n`);
    expect(result.transient).toBe(true);
    expect(result.kind).toBe('busy');
  });
});

/** Every parameter problem of docs/ipset-semantics.md §3.3 and the P rows of docs/ipset-semantics.md §3.1/§3.2, verbatim. */
const parameterMessages = [
  'No command specified: unknown argument foo',
  'No command specified.',
  'Missing mandatory argument to command add',
  'Missing second mandatory argument to command add',
  'Missing second mandatory argument to command create',
  "Command `restore' is invalid in restore mode.",
  "Unknown argument: `X'",
  "Unknown argument: `foo'",
  "Unknown argument: `nomatch'",
  "Unknown argument: `10.0.0.2'",
  "Unknown argument: `#'",
  "Missing mandatory argument of option `comment'",
  "Missing mandatory argument of option `before'",
  'Missing close quote!',
  'Line is too long to parse.',
  'Unknown argument foo',
];

describe('classifyIpsetError: parameter problems (docs/ipset-semantics.md §3.3)', () => {
  it.each(parameterMessages)('%j → parameter, userspace, no line', (message) => {
    const stderr = `${V}${message}\nTry \`ipset help' for more information.\n`;
    expect(classifyIpsetError(stderr, { exitCode: 2 })).toEqual({
      kind: 'parameter',
      side: 'userspace',
      message,
      transient: false,
    });
    // the Try-line alone is enough
    expect(classifyIpsetError(stderr).kind).toBe('parameter');
    // and so is rc=2 alone, or the message alone
    expect(classifyIpsetError(`${V}${message}\n`, { exitCode: 2 }).kind).toBe('parameter');
    expect(classifyIpsetError(`${V}${message}\n`).kind).toBe('parameter');
  });
});

/** The port / service errors of docs/ipset-semantics.md §3.4, verbatim. */
const portErrors = [
  "Syntax error: '70000' is out of range 0-65535\nSyntax error: 'tcp' is invalid as number\ncannot parse '70000' as a tcp port",
  "Syntax error: 'nosuchservice' is invalid as number\nSyntax error: 'tcp' is invalid as number\ncannot parse 'nosuchservice' as a tcp port",
  "Syntax error: 'nosuchservice' is invalid as number\nSyntax error: 'udp' is invalid as number\ncannot parse 'nosuchservice' as a udp port",
  "Syntax error: '99999' is out of range 0-65535\ncannot parse '99999' as a 6 port",
  "Syntax error: 'tcp:' is invalid as number\nSyntax error: 'tcp' is invalid as number\ncannot parse 'tcp:' as a tcp port",
];

describe('classifyIpsetError: port errors (docs/ipset-semantics.md §3.4)', () => {
  it.each(portErrors)('%j → syntax, userspace, no line', (message) => {
    expect(classifyIpsetError(`${V}${message}\n`, { exitCode: 1 })).toEqual({
      kind: 'syntax',
      side: 'userspace',
      message,
      transient: false,
    });
  });
});

describe('classifyIpsetError: crashes and signals', () => {
  it('exit 139 without output is a SIGSEGV crash, not transient (docs/ipset-semantics.md §2.3 icmpv6 case)', () => {
    expect(classifyIpsetError('', { exitCode: 139 })).toEqual({
      kind: 'crash',
      side: 'userspace',
      message: 'ipset was killed by SIGSEGV',
      transient: false,
    });
  });
  it.each([
    ['SIGSEGV', false],
    ['SIGABRT', false],
    ['SIGBUS', false],
    ['SIGKILL', true],
    ['SIGTERM', true],
    ['SIGINT', true],
    ['SIGPIPE', true],
  ] as const)('signal %s → crash, transient %s', (signal, transient) => {
    const result = classifyIpsetError('', { exitCode: 1, signal });
    expect(result).toEqual({ kind: 'crash', side: 'userspace', message: `ipset was killed by ${signal}`, transient });
  });
  it.each([
    [137, 'SIGKILL', true],
    [143, 'SIGTERM', true],
    [134, 'SIGABRT', false],
  ] as const)('exit %i without output → %s', (exitCode, signal, transient) => {
    expect(classifyIpsetError('', { exitCode })).toMatchObject({ kind: 'crash', message: `ipset was killed by ${signal}`, transient });
  });
  it('a signal wins over partial output and keeps it in the message', () => {
    const result = classifyIpsetError(`${V}Error in line 2: Hash is full, cannot add more elements\n`, { signal: 'SIGKILL' });
    expect(result.kind).toBe('crash');
    expect(result.line).toBeUndefined();
    expect(result.message).toBe('ipset was killed by SIGKILL: Hash is full, cannot add more elements');
  });
});

describe('classifyIpsetError: unknown output', () => {
  it('no output, no signal', () => {
    expect(classifyIpsetError('', { exitCode: 255 })).toEqual({
      kind: 'unknown',
      side: 'userspace',
      message: 'ipset exited with status 255 without a message',
      transient: false,
    });
    expect(classifyIpsetError('   \n').message).toBe('ipset failed without a message');
  });
  it('an unrecognised message is unknown, userspace (resending is safe), keeps its line', () => {
    expect(classifyIpsetError(`${V}Error in line 4: Something new\n`, { exitCode: 1 })).toEqual({
      kind: 'unknown',
      side: 'userspace',
      line: 4,
      message: 'Something new',
      transient: false,
    });
  });
  it('test-line output (docs/ipset-semantics.md §1.5) is unknown', () => {
    expect(classifyIpsetError('3.3.3.3 is NOT in set a.\n', { exitCode: 1 }).kind).toBe('unknown');
  });
  it('an element-exists message is not mistaken for set-exists', () => {
    expect(classifyIpsetError(`${V}Error in line 2: Element cannot be added to the set: it's already added`).kind).toBe(
      'element-exists',
    );
  });
});

describe('classifyIpsetError on a runaway stderr', () => {
  it('reads at most 64 KiB and keeps a message of at most 2,000 characters that says it was cut (200 MB of stderr made a 200 MB report)', () => {
    const stderr = `${V}Error in line 3: Syntax error: ${'x'.repeat(10 * 1024 * 1024)}\n${'more\n'.repeat(100_000)}`;
    const started = performance.now();
    const error = classifyIpsetError(stderr, { exitCode: 1 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(error.line).toBe(3);
    expect(error.message.length).toBeLessThan(2100);
    expect(error.message.slice(-60)).toMatch(/x… \(cut: ipset printed \d{8} characters\)$/);
    expect(error.message.startsWith('Syntax error: xxx')).toBe(true);
    // A short stderr is kept whole.
    expect(classifyIpsetError(`${V}Error in line 3: Syntax error: bad\n`).message).toBe('Syntax error: bad');
  });
});
