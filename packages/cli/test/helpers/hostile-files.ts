/**
 * Hostile inputs for the table tests: desired-state files and captured saves that an
 * attacker or a careless operator could hand to `ipsets`. Each one must be refused
 * (exit 2) with a bounded report and no stack trace, and change nothing in the kernel.
 *
 * A case's content is text, bytes, or a special file the test creates (a directory, a
 * FIFO, a sparse file over the size limit) or names (`/dev/zero`, `/dev/null`).
 */

/** One hostile input. */
export interface HostileCase {
  readonly title: string;
  /** File name (its extension picks the parser). */
  readonly name: string;
  readonly content?: string | Buffer;
  /** A file the test makes or names instead of writing `content`. */
  readonly special?: 'directory' | 'fifo' | 'sparse-over-limit' | 'missing' | '/dev/zero' | '/dev/null';
  /** Extra arguments (e.g. none: an empty desired file must be refused without --allow-empty). */
  readonly args?: readonly string[];
}

const GOOD = { type: 'namespace', name: 'shop', members: ['10.0.0.1'] };
const json = (doc: unknown): string => JSON.stringify(doc);
/** A good set (which must not be applied either) plus one hostile set. */
const withSet = (set: Record<string, unknown>): string => json({ sets: [GOOD, set] });
const member = (m: unknown, type = 'namespace'): string => withSet({ type, name: 'bad', members: [m] });
const name = (n: unknown): string => withSet({ type: 'namespace', name: n, members: ['10.0.0.2'] });
const yaml = (body: string): string => `sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n${body}`;

/** The member that split ipset's 1,023-byte line reader into `-D …` and a trailing `-F`. */
const padTo = (total: number, tail: string) => `10.0.0.1${'0'.repeat(Math.max(0, total - 8 - tail.length))}${tail}`;

const aliasBomb = [
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`),
  'sets: []',
].join('\n');

/** At least 70 hostile desired-state files. */
export const HOSTILE_DESIRED: readonly HostileCase[] = [
  // --- members that would be injection if echoed into a restore line
  { title: 'member with a newline and -F', name: 'm1.json', content: member('10.0.0.1\n-F') },
  { title: 'member with a newline and -X of a foreign set', name: 'm2.json', content: member('10.0.0.1\n-X foreign-set') },
  { title: 'member with a space and -F', name: 'm3.json', content: member('10.0.0.1 -F') },
  { title: 'member with # comment', name: 'm4.json', content: member('10.0.0.1 # x') },
  { title: 'member starting with #', name: 'm5.json', content: member('#10.0.0.1') },
  { title: 'member -F', name: 'm6.json', content: member('-F') },
  { title: 'member -X owned set', name: 'm7.json', content: member('-X ipsets-abc') },
  { title: 'member with NUL', name: 'm8.json', content: member('10.0.0.1\u0000') },
  { title: 'member with Arabic-Indic digit', name: 'm9.json', content: member('10.0.0.\u0661') },
  { title: 'member with full-width digits', name: 'm10.json', content: member('\uFF11\uFF10.0.0.1') },
  { title: 'member padded to a 1,023-byte -D line ending in -F', name: 'm11.json', content: member(padTo(1023 - 40, '-F')) },
  { title: 'member padded to 1,024 bytes', name: 'm12.json', content: member(padTo(1024, '-X foreign-set')) },
  { title: 'member of 5 MB', name: 'm13.json', content: member('1'.repeat(5_000_000)) },
  { title: 'member with CR', name: 'm14.json', content: member('10.0.0.1\r') },
  { title: 'member with CRLF and -F', name: 'm15.json', content: member('10.0.0.1\r\n-F') },
  { title: 'member with a tab', name: 'm16.json', content: member('10.0.0.1\t') },
  { title: 'empty member', name: 'm17.json', content: member('') },
  { title: 'member is a number', name: 'm18.json', content: member(167772161) },
  { title: 'member is null', name: 'm19.json', content: member(null) },
  { title: 'member is a mapping', name: 'm20.json', content: member({ ip: '10.0.0.1' }) },
  { title: 'member is a list', name: 'm21.json', content: member(['10.0.0.1']) },
  { title: 'member is true', name: 'm22.json', content: member(true) },
  { title: 'member is a huge number (1e999)', name: 'm23.json', content: withSet({ type: 'namespace', name: 'bad', members: [] }).replace('"members":[]', '"members":[1e999]') },
  { title: 'member 0.0.0.0/0', name: 'm24.json', content: member('0.0.0.0/0') },
  { title: 'member /33', name: 'm25.json', content: member('10.0.0.1/33') },
  { title: 'member octet 256', name: 'm26.json', content: member('10.0.0.256') },
  { title: 'member with a leading zero', name: 'm27.json', content: member('010.0.0.1') },
  { title: 'member nomatch twice', name: 'm28.json', content: member('10.0.0.1 nomatch nomatch') },
  { title: 'named port in a namespace set', name: 'm29.json', content: member('10.0.0.1,tcp:80') },
  { title: 'named port 99999', name: 'm30.json', content: member('10.0.0.1,tcp:99999', 'namedPorts') },
  { title: 'named port with icmp', name: 'm31.json', content: member('10.0.0.1,icmp:1', 'namedPorts') },
  { title: 'named port with newline and -F', name: 'm32.json', content: member('10.0.0.1,tcp:80\n-F', 'namedPorts') },
  { title: 'member with U+2028', name: 'm33.json', content: member('10.0.0.1\u2028-F') },
  { title: 'member with NEL (U+0085)', name: 'm34.json', content: member('10.0.0.1\u0085') },
  { title: 'member with a lone surrogate', name: 'm35.json', content: withSet({ type: 'namespace', name: 'bad', members: [] }).replace('"members":[]', '"members":["10.0.0.1\\ud800"]') },
  // --- set names
  { title: 'name with a newline', name: 'n1.json', content: name('a\n-F') },
  { title: 'name with a space', name: 'n2.json', content: name('a b') },
  { title: 'name with #', name: 'n3.json', content: name('a#b') },
  { title: 'name starting with -', name: 'n4.json', content: name('-F') },
  { title: 'empty name', name: 'n5.json', content: name('') },
  { title: 'name with NUL', name: 'n6.json', content: name('a\u0000') },
  { title: 'name with non-ASCII', name: 'n7.json', content: name('caf\u00e9') },
  { title: 'name of 20 MB', name: 'n8.json', content: name('n'.repeat(20_000_000)) },
  { title: 'name with a double quote', name: 'n9.json', content: name('a"b') },
  { title: 'name with a single quote', name: 'n10.json', content: name("a'b") },
  { title: 'name is a number', name: 'n11.json', content: name(5) },
  { title: 'name is null', name: 'n12.json', content: name(null) },
  { title: 'name is a list', name: 'n13.json', content: name(['x']) },
  { title: 'name of 513 characters', name: 'n14.json', content: name('x'.repeat(513)) },
  { title: 'name with a BOM inside', name: 'n15.json', content: name('\uFEFFshop') },
  // --- types and structure
  { title: 'unknown type', name: 't1.json', content: withSet({ type: 'podLabel', name: 'a' }) },
  { title: 'empty type', name: 't2.json', content: withSet({ type: '', name: 'a' }) },
  { title: 'type with a newline', name: 't3.json', content: withSet({ type: 'namespace\n', name: 'a' }) },
  { title: 'type is a number', name: 't4.json', content: withSet({ type: 5, name: 'a' }) },
  { title: 'type __proto__', name: 't5.json', content: withSet({ type: '__proto__', name: 'a' }) },
  { title: 'duplicate "sets" key (JSON last-one-wins emptied the node)', name: 'd1.json', content: `{"sets":[${json(GOOD)}],"sets":[]}` },
  { title: 'duplicate key inside a set (JSON)', name: 'd2.json', content: `{"sets":[{"type":"namespace","name":"shop","name":"other","members":[]}]}` },
  { title: 'duplicate "sets" key (YAML)', name: 'd3.yaml', content: yaml('sets: []\n') },
  { title: 'duplicate name key (YAML)', name: 'd4.yaml', content: 'sets:\n  - type: namespace\n    name: a\n    name: b\n' },
  { title: 'duplicate key spelled with an escape (JSON)', name: 'd5.json', content: `{"sets":[${json(GOOD)}],"s\\u0065ts":[]}` },
  { title: 'unknown root key', name: 's1.json', content: json({ sets: [GOOD], extra: 1 }) },
  { title: '__proto__ root key', name: 's2.json', content: `{"__proto__":{"sets":[]},"sets":[${json(GOOD)}]}` },
  { title: 'constructor key in a set', name: 's3.json', content: withSet({ type: 'namespace', name: 'a', constructor: 1 }) },
  { title: 'empty owner', name: 's4.json', content: json({ owner: '', sets: [GOOD] }) },
  { title: 'owner with a space', name: 's5.json', content: json({ owner: 'a b-', sets: [GOOD] }) },
  { title: 'owner of 100 characters', name: 's6.json', content: json({ owner: 'o'.repeat(100), sets: [GOOD] }) },
  { title: 'owner with a newline', name: 's7.json', content: json({ owner: 'azure-npm-\n-F', sets: [GOOD] }) },
  { title: 'unknown scheme', name: 's8.json', content: json({ scheme: 'md5', sets: [GOOD] }) },
  { title: 'sets is a mapping', name: 's9.json', content: json({ sets: {} }) },
  { title: 'sets is a string', name: 's10.json', content: json({ sets: 'x' }) },
  { title: 'sets is null', name: 's11.json', content: json({ sets: null }) },
  { title: 'no sets key', name: 's12.json', content: '{}' },
  { title: 'list containing itself', name: 's13.yaml', content: yaml('  - { type: nestedLabelOfPod, name: l, members: [{ type: nestedLabelOfPod, name: l }] }\n') },
  { title: 'list member not declared', name: 's14.yaml', content: yaml('  - { type: nestedLabelOfPod, name: l, members: [{ type: namespace, name: nope }] }\n') },
  { title: 'list member with an extra key', name: 's15.yaml', content: yaml('  - { type: nestedLabelOfPod, name: l, members: [{ type: namespace, name: shop, x: 1 }] }\n') },
  { title: 'list member as a string', name: 's16.yaml', content: yaml('  - { type: nestedLabelOfPod, name: l, members: [ns-shop] }\n') },
  // --- YAML features
  { title: 'YAML alias bomb', name: 'y1.yaml', content: aliasBomb },
  { title: 'YAML !!binary', name: 'y2.yaml', content: 'sets: !!binary aGVsbG8=\n' },
  { title: 'YAML custom tag', name: 'y3.yaml', content: 'sets:\n  - !pod { type: namespace, name: a }\n' },
  { title: 'YAML 1.1 !!binary', name: 'y4.yaml', content: '%YAML 1.1\n---\nsets: !!binary aGVsbG8=\n' },
  { title: 'YAML null root', name: 'y5.yaml', content: 'null\n' },
  { title: 'YAML ~ root', name: 'y6.yaml', content: '~\n' },
  { title: 'YAML list root', name: 'y7.yaml', content: '- a\n- b\n' },
  { title: 'YAML string root', name: 'y8.yaml', content: 'hello\n' },
  { title: 'YAML number root', name: 'y9.yaml', content: '42\n' },
  { title: 'JSON list root', name: 'y10.json', content: '[]' },
  { title: 'two YAML documents', name: 'y11.yaml', content: 'sets: []\n---\nsets: []\n' },
  { title: 'YAML syntax error', name: 'y12.yaml', content: 'sets: [a, b\n' },
  { title: 'YAML merge key', name: 'y13.yaml', content: 'x: &x { type: namespace }\nsets:\n  - { <<: *x, name: a }\n' },
  { title: 'YAML CRLF with a CR in a name', name: 'y14.yaml', content: 'sets:\r\n  - { type: namespace, name: "a\\r", members: [10.0.0.1] }\r\n' },
  // --- nesting, syntax, size
  { title: 'JSON nested 200,000 deep', name: 'x1.json', content: `{"sets":${'['.repeat(200_000)}${']'.repeat(200_000)}}` },
  { title: 'YAML flow nested 50,000 deep', name: 'x2.yaml', content: `sets: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n` },
  { title: 'YAML block nested 3,000 deep', name: 'x3.yaml', content: `sets:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}x\n` },
  { title: 'JSON trailing comma', name: 'x4.json', content: `{"sets":[${json(GOOD)},]}` },
  { title: 'JSON cut in half', name: 'x5.json', content: json({ sets: [GOOD, GOOD] }).slice(0, 40) },
  { title: 'JSON with a raw control character', name: 'x6.json', content: member('x').replace('"x"', '"10.0.0.1\u0001"') },
  // --- encoding
  { title: 'invalid UTF-8 byte', name: 'e1.yaml', content: Buffer.concat([Buffer.from(yaml('  - { type: namespace, name: a')), Buffer.from([0xff, 0xfe]), Buffer.from(' }\n')]) },
  { title: 'UTF-16LE with BOM', name: 'e2.json', content: Buffer.from(`\uFEFF${json({ sets: [GOOD] })}`, 'utf16le') },
  { title: 'BOM then a wrong type', name: 'e3.json', content: `\uFEFF${json({ sets: 5 })}` },
  { title: 'overlong UTF-8 encoding', name: 'e4.yaml', content: Buffer.concat([Buffer.from('sets:\n  - { type: namespace, name: a'), Buffer.from([0xc0, 0xaf]), Buffer.from(' }\n')]) },
  { title: 'UTF-8 cut in the middle of a character', name: 'e5.yaml', content: Buffer.concat([Buffer.from('sets: []\nowner: a'), Buffer.from([0xe2, 0x82])]) },
  // --- files that are not files
  { title: 'empty file', name: 'f1.yaml', content: '' },
  { title: 'whitespace only', name: 'f2.json', content: '  \n\t\n' },
  { title: 'comments only', name: 'f3.yaml', content: '# nothing\n' },
  { title: 'a directory', name: 'f4.yaml', special: 'directory' },
  { title: '/dev/zero (reading never ends)', name: '/dev/zero', special: '/dev/zero' },
  { title: '/dev/null', name: '/dev/null', special: '/dev/null' },
  { title: 'a FIFO (reading would block)', name: 'f7.yaml', special: 'fifo' },
  { title: 'a file over 256 MiB', name: 'f8.json', special: 'sparse-over-limit' },
  { title: 'a missing file', name: 'f9.yaml', special: 'missing' },
  // --- an empty desired state is never an accident
  { title: 'empty sets list (JSON) with owned sets in the kernel', name: 'z1.json', content: '{"sets":[]}' },
  { title: 'empty sets list (YAML) with owned sets in the kernel', name: 'z2.yaml', content: 'sets: []\n' },
  { title: 'empty sets list with the default owner written out', name: 'z3.yaml', content: 'owner: ipsets-\nsets: []\n' },
];

/** A save with one owned set `ipsets-aaa` (hash:net) and the given extra lines. */
const save = (...lines: string[]) => ['create ipsets-aaa hash:net family inet hashsize 1024 maxelem 65536', 'add ipsets-aaa 10.0.0.1', ...lines, ''].join('\n');
/** `-D ipsets-aaa MEMBER` has 20 bytes besides the member. */
const dLine = (total: number, tail: string) => padTo(total - 1 - '-D ipsets-aaa '.length, tail);

/** At least 20 hostile captured saves (for `plan --save`). */
export function hostileSaves(): HostileCase[] {
  const garbage: string[] = [];
  // 100 MB of printable garbage lines (the save that ran out of heap).
  const line = 'Zm9vYmFyIGJheiBxdXV4IGdhcmJhZ2UgbGluZSBvZiBwcmludGFibGUgdGV4dA== '.repeat(3);
  for (let total = 0; total < 100 * 1024 * 1024; total += line.length + 1) garbage.push(line);
  return [
    { title: 'member making a 1,023-byte -D line ending in -F', name: 'v1.save', content: save(`add ipsets-aaa ${dLine(1023, '-F')}`) },
    { title: 'member making a 1,022-byte -D line ending in -F', name: 'v2.save', content: save(`add ipsets-aaa ${dLine(1022, '-F')}`) },
    { title: 'member making a 1,024-byte -D line ending in -X', name: 'v3.save', content: save(`add ipsets-aaa ${dLine(1024, '-X')}`) },
    { title: 'member making a 1,025-byte -D line ending in -F', name: 'v4.save', content: save(`add ipsets-aaa ${dLine(1025, '-F')}`) },
    { title: 'member with a leading zero (not as ipset prints it)', name: 'v5.save', content: save('add ipsets-aaa 10.0.0.01') },
    { title: 'member with /32 (ipset prints none)', name: 'v6.save', content: save('add ipsets-aaa 10.0.0.2/32') },
    { title: 'member with host bits set', name: 'v7.save', content: save('add ipsets-aaa 10.0.0.5/24') },
    { title: 'hash:ip,port member without a protocol', name: 'v8.save', content: save('create ipsets-bbb hash:ip,port family inet', 'add ipsets-bbb 10.0.0.1,80') },
    { title: 'list:set member -F', name: 'v9.save', content: save('create ipsets-ccc list:set size 8', 'add ipsets-ccc -F') },
    { title: 'owned set name over 31 characters', name: 'v10.save', content: save(`create ipsets-${'x'.repeat(40)} hash:net family inet`) },
    { title: 'a garbage line', name: 'v11.save', content: save('this is not ipset save output') },
    { title: 'a 10 MB single line', name: 'v12.save', content: `${'x'.repeat(10 * 1024 * 1024)}\n` },
    { title: '100 MB of garbage (ran out of heap)', name: 'v13.save', content: garbage.join('\n') },
    { title: 'random bytes (invalid UTF-8)', name: 'v14.save', content: Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7919 + 13) & 255)) },
    { title: 'NUL bytes in a line', name: 'v15.save', content: save('add ipsets-aaa 10.0.0.3\u0000-F') },
    { title: 'add before create', name: 'v16.save', content: 'add ipsets-zzz 10.0.0.1\n' },
    { title: 'create without a type', name: 'v17.save', content: 'create ipsets-zzz\n' },
    { title: 'a second create of the same set', name: 'v18.save', content: save('create ipsets-aaa hash:net family inet') },
    { title: 'member with non-ASCII', name: 'v19.save', content: save('add ipsets-aaa 10.0.0.\u0661') },
    { title: 'member of 5,000 characters', name: 'v20.save', content: save(`add ipsets-aaa ${'1'.repeat(5000)}`) },
    { title: 'member 0.0.0.0/0', name: 'v21.save', content: save('add ipsets-aaa 0.0.0.0/0') },
    { title: 'a directory', name: 'v22.save', special: 'directory' },
    { title: '/dev/zero', name: '/dev/zero', special: '/dev/zero' },
    { title: 'a FIFO', name: 'v24.save', special: 'fifo' },
    { title: 'a file over 256 MiB', name: 'v25.save', special: 'sparse-over-limit' },
  ];
}
