/**
 * The desired-state file: JSON or YAML that declares sets by NPM type and
 * unprefixed name, with their members. Validated with zod; every problem names the
 * path of the bad value (and its line when the text is at hand), quotes it and
 * says what was expected. A file with any problem yields nothing: callers never
 * apply half a file.
 *
 * Members are checked with core's `canonicalMemberForType`, so the command and
 * the library accept exactly the same members.
 */
import { extname } from 'node:path';
import { Composer, LineCounter, Parser, YAMLParseError, isAlias, isMap, isNode, isScalar, isSeq } from 'yaml';
import type { CST, Document } from 'yaml';
import { z } from 'zod';
import {
  IPSetManager,
  DIGEST_LENGTH,
  INET6_NAME_SUFFIX,
  IpsetsError,
  MAX_KERNEL_NAME_LENGTH,
  NAMING_SCHEMES,
  SET_TYPES,
  canonicalMemberForType,
  isIpsetsError,
  kernelName,
  memberFamily,
  prefixedName,
  setTypeInfo,
  validateCapacity,
  validateOwner,
  validateSetName,
  validateUnprefixedName,
} from '@ipsets/core';
import type { AddressFamily, DesiredState, NamingScheme, SetCapacity, SetMetadata, SetType } from '@ipsets/core';
import { decodeUtf8, readInputFile, readInputStream } from './bounded-read.js';
import { cutText, formatCount, quoteCut as quote } from './format.js';
import { MAX_JSON_DEPTH, lineColumns, locateJsonPaths, scanJsonStructure } from './json-scan.js';

/** Longest unprefixed set name a file may use (Kubernetes `key:value` labels fit with room to spare). */
export const MAX_SET_NAME_LENGTH = 512;

/** The owner prefix when a file names none (the reference implementation's). */
export const DEFAULT_FILE_OWNER = 'azure-npm-';

/** One declared set, validated: hash-set members canonical, list members as set metadata. */
export interface DesiredFileSet {
  readonly type: SetType;
  /** Unprefixed name. */
  readonly name: string;
  /** Hash sets: canonical members (duplicates removed, first occurrence kept). */
  readonly members: readonly string[];
  /** Lists: member sets (each declared as a hash set in the same file). */
  readonly memberSets: readonly SetMetadata[];
  /**
   * Hash sets: the one address family of the set, when the file names it; otherwise
   * IPv4 and IPv6 members go to the set's `inet` and `inet6` kernel sets.
   */
  readonly family?: AddressFamily;
  /** Hash sets: `maxelem` and `hashsize` of the set's kernel set(s), when the file names them. */
  readonly capacity?: SetCapacity;
}

/** A validated desired-state file. */
export interface DesiredFile {
  /** Owner prefix of kernel names. */
  readonly owner: string;
  readonly scheme: NamingScheme;
  readonly sets: readonly DesiredFileSet[];
}

/** One problem of a desired-state file. */
export interface FileProblem {
  /** Where the bad value is, e.g. `sets[3].members[0]` (`(root)` for the whole document). */
  readonly path: string;
  /** 1-based line and column in the text, when known. */
  readonly line?: number;
  readonly column?: number;
  /** Quotes the bad value and says what was expected. */
  readonly message: string;
}

/** Options of {@link parseDesiredText}. */
export interface ParseDesiredOptions {
  /** `json` or `yaml`; by default JSON when the text starts with `{` or `[`, else YAML (YAML reads JSON too). */
  readonly format?: 'json' | 'yaml';
  /** File name for messages. */
  readonly source?: string;
}

const setTypeValues = SET_TYPES as readonly SetType[];
const typeList = setTypeValues.join(', ');

const setRefSchema = z
  .object({
    type: z.string(),
    name: z.string(),
  })
  .strict();

const setSchema = z
  .object({
    type: z.string(),
    name: z.string(),
    members: z.array(z.unknown()).default([]),
    family: z.string().optional(),
    maxelem: z.unknown().optional(),
    hashsize: z.unknown().optional(),
  })
  .strict();

const fileSchema = z
  .object({
    owner: z.string().optional(),
    scheme: z.string().optional(),
    sets: z.array(setSchema),
  })
  .strict();

type RawFile = z.infer<typeof fileSchema>;

/** Renders a zod path as `sets[3].members[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return quote(value);
  return `${typeof value} ${quote(value)}`;
}

const EXPECTED_KEYS: Record<string, string> = {
  '(root)': 'owner, scheme, sets',
  set: 'type, name, members, family, maxelem, hashsize',
  ref: 'type, name',
};

/** What a whole desired file must be, for messages about the document itself. */
const ROOT_EXPECTED = 'a mapping with a "sets" list (see ipsets plan --help)';

/** Longest member string looked at; the longest valid one ("255.255.255.255,sctp:65535") has 26 characters. */
const MAX_MEMBER_LENGTH = 64;

function zodIssueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.path.length === 0) return `got ${describeValue(issue.input)}; expected ${ROOT_EXPECTED}`;
      return `got ${describeValue(issue.input)}; expected ${issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'a mapping' : `a ${issue.expected}`}`;
    case 'unrecognized_keys': {
      const depth = issue.path.length;
      const where = depth === 0 ? '(root)' : depth === 2 ? 'set' : 'ref';
      const keys = issue.keys.slice(0, 10).map((k) => quote(k)).join(', ') + (issue.keys.length > 10 ? ` and ${formatCount(issue.keys.length - 10)} more` : '');
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}; expected only ${EXPECTED_KEYS[where]}`;
    }
    default:
      return cutText(issue.message, 300);
  }
}

/** Validates an unprefixed set name; returns why it is bad, or undefined. */
function setNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_SET_NAME_LENGTH) return `it is ${name.length} characters long (at most ${MAX_SET_NAME_LENGTH})`;
  if (name.startsWith('-')) return 'it starts with "-"';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c <= 32 || c >= 127) return `it contains ${quote(name[i])} (only printable ASCII without whitespace)`;
    if (c === 35) return 'it contains "#"';
    if (c === 34 || c === 39) return 'it contains a quote';
  }
  // Core's own rule, so the file never accepts a name the manager refuses.
  try {
    validateUnprefixedName(name);
  } catch {
    return 'it contains whitespace or a control character';
  }
  return undefined;
}

/** Problems kept in full; past this they are only counted (a file of 3,000,000 bad members must not cost 3,000,000 messages). */
export const MAX_KEPT_PROBLEMS = 1000;

/** Validation stops after this many problems: a file of millions of bad members is refused in seconds. */
export const MAX_COUNTED_PROBLEMS = 10_000;

interface Collector {
  problems: FileProblem[];
  /** Problems found, kept or not. */
  total: number;
  add(path: readonly PropertyKey[], message: string | (() => string)): void;
}

function collector(): Collector {
  const c: Collector = {
    problems: [],
    total: 0,
    add: (path, message) => {
      c.total++;
      if (c.problems.length < MAX_KEPT_PROBLEMS) c.problems.push({ path: formatPath(path), message: typeof message === 'string' ? message : message() });
    },
  };
  return c;
}

function isSetType(value: string): value is SetType {
  return (setTypeValues as readonly string[]).includes(value);
}

function checkType(c: Collector, path: readonly PropertyKey[], type: string): SetType | undefined {
  if (isSetType(type)) return type;
  c.add(path, `unknown set type ${quote(type)}; expected one of ${typeList}`);
  return undefined;
}

function checkName(c: Collector, path: readonly PropertyKey[], name: string): boolean {
  const problem = setNameProblem(name);
  if (problem === undefined) return true;
  c.add(
    path,
    `invalid set name ${quote(name)}: ${problem}; expected 1-${MAX_SET_NAME_LENGTH} printable ASCII characters without whitespace, "#" or quotes, not starting with "-"`,
  );
  return false;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return cutText(error.message.replace(/\.$/, ''));
  return cutText(String(error));
}

/**
 * Validates a parsed document (the result of `JSON.parse` or YAML) and returns the
 * desired file, or the full list of problems.
 */
export function validateDesiredDocument(
  doc: unknown,
): { ok: true; file: DesiredFile } | { ok: false; problems: FileProblem[]; total: number; more?: true } {
  const parsed = fileSchema.safeParse(doc, { reportInput: true });
  const c = collector();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) c.add(issue.path, () => zodIssueMessage(issue));
    return { ok: false, problems: c.problems, total: c.total };
  }
  const raw: RawFile = parsed.data;

  const owner = raw.owner ?? DEFAULT_FILE_OWNER;
  let scheme: NamingScheme = 'sha256-base36';
  if (raw.scheme !== undefined) {
    if ((NAMING_SCHEMES as readonly string[]).includes(raw.scheme)) scheme = raw.scheme as NamingScheme;
    else c.add(['scheme'], `unknown naming scheme ${quote(raw.scheme)}; expected one of ${NAMING_SCHEMES.join(', ')}`);
  }
  let ownerOk = true;
  if (raw.owner !== undefined && raw.owner.length > MAX_KERNEL_NAME_LENGTH) {
    // Cut here: core's message would quote the whole value.
    c.add(['owner'], `owner prefix ${quote(owner)} is ${formatCount(owner.length)} characters long; expected an owner prefix of at most ${MAX_KERNEL_NAME_LENGTH - DIGEST_LENGTH[scheme]} characters`);
    ownerOk = false;
  } else if (raw.owner !== undefined) {
    try {
      // Core's rule: a usable kernel-name start that leaves room for the digest within 31 characters.
      validateOwner(owner, scheme);
    } catch (error) {
      const longest = MAX_KERNEL_NAME_LENGTH - DIGEST_LENGTH[scheme];
      const message = messageOf(error);
      c.add(['owner'], /expected/.test(message) ? message : `${message}; expected an owner prefix of at most ${longest} characters`);
      ownerOk = false;
    }
  }

  // First pass: types and names, so list members can be checked against declared sets.
  const declared = new Map<string, { index: number; type: SetType }>();
  const types: (SetType | undefined)[] = [];
  raw.sets.forEach((set, i) => {
    const type = checkType(c, ['sets', i, 'type'], set.type);
    types.push(type);
    const nameOk = checkName(c, ['sets', i, 'name'], set.name);
    if (type === undefined || !nameOk) return;
    const prefixed = prefixedName({ name: set.name, type });
    const previous = declared.get(prefixed);
    if (previous !== undefined) {
      c.add(
        ['sets', i],
        `set ${quote(set.name)} of type ${type} is already declared at sets[${previous.index}] (both are ${quote(prefixed)}); expected each set once`,
      );
      return;
    }
    declared.set(prefixed, { index: i, type });
  });

  const sets: DesiredFileSet[] = [];
  raw.sets.forEach((set, i) => {
    const type = types[i];
    if (type === undefined) return;
    const kind = setTypeInfo(type).kind;
    const members: string[] = [];
    const memberSets: SetMetadata[] = [];
    let family: AddressFamily | undefined;
    let capacity: SetCapacity | undefined;
    if (kind !== 'set') {
      for (const key of ['family', 'maxelem', 'hashsize'] as const) {
        if (set[key] !== undefined) c.add(['sets', i, key], `a list (${type}) has no ${key}; expected it only on hash sets`);
      }
    } else {
      if (set.family !== undefined) {
        if (set.family === 'inet' || set.family === 'inet6') family = set.family;
        else c.add(['sets', i, 'family'], `unknown family ${quote(set.family)}; expected inet or inet6 (or no family: IPv4 and IPv6 members then go to one kernel set each)`);
      }
      if (set.maxelem !== undefined || set.hashsize !== undefined) {
        try {
          capacity = validateCapacity(
            { ...(set.maxelem === undefined ? {} : { maxelem: set.maxelem }), ...(set.hashsize === undefined ? {} : { hashsize: set.hashsize }) },
            setTypeInfo(type).createSpec,
            `sets[${i}]`,
            'INVALID_INPUT',
          );
        } catch (error) {
          c.add(['sets', i, set.maxelem !== undefined && /maxelem/.test(messageOf(error)) ? 'maxelem' : 'hashsize'], messageOf(error));
        }
      }
    }
    if (kind === 'set') {
      const seen = new Map<string, number>();
      set.members.forEach((member, j) => {
        if (c.total >= MAX_COUNTED_PROBLEMS) return;
        const path = ['sets', i, 'members', j];
        if (typeof member !== 'string') {
          c.add(path, `got ${describeValue(member)}; expected a member string like ${type === 'namedPorts' ? '"10.0.0.1,tcp:80"' : '"10.0.0.1" or "10.0.0.0/24 nomatch"'}`);
          return;
        }
        if (member.length > MAX_MEMBER_LENGTH) {
          c.add(
            path,
            `member ${quote(member)} is ${formatCount(member.length)} characters long; expected a member string of at most ${MAX_MEMBER_LENGTH} characters like ${type === 'namedPorts' ? '"10.0.0.1,tcp:80"' : '"10.0.0.1" or "10.0.0.0/24 nomatch"'}`,
          );
          return;
        }
        let canonical: string;
        try {
          // Without a family, an IPv6 member goes to the set's inet6 sibling (the manager routes it there).
          canonical = canonicalMemberForType(type, member, family ?? memberFamily(member));
        } catch (error) {
          c.add(path, messageOf(error));
          return;
        }
        // A CIDR and the same CIDR with nomatch are one kernel entry: the file must pick one.
        const entry = canonical.endsWith(' nomatch') ? canonical.slice(0, -' nomatch'.length) : canonical;
        const earlier = seen.get(entry);
        if (earlier !== undefined) {
          const first = members[earlier];
          if (first !== canonical) {
            c.add(
              path,
              `member ${quote(member)} is the same kernel entry as ${quote(first)} (sets[${i}].members, earlier); expected one of them (nomatch is an attribute of the entry)`,
            );
          }
          return;
        }
        seen.set(entry, members.length);
        members.push(canonical);
      });
    } else {
      const seen = new Set<string>();
      set.members.forEach((member, j) => {
        const path = ['sets', i, 'members', j];
        const ref = setRefSchema.safeParse(member, { reportInput: true });
        if (!ref.success) {
          const first = ref.error.issues[0];
          const detail = first === undefined ? '' : ` (${formatPath(first.path)}: ${zodIssueMessage(first)})`;
          c.add(path, `got ${describeValue(member)}${detail}; expected a member set like { type: keyValueLabelOfPod, name: "app:web" }`);
          return;
        }
        const memberType = checkType(c, [...path, 'type'], ref.data.type);
        if (memberType === undefined || !checkName(c, [...path, 'name'], ref.data.name)) return;
        const meta: SetMetadata = { type: memberType, name: ref.data.name };
        const prefixed = prefixedName(meta);
        if (prefixed === prefixedName({ type, name: set.name })) {
          c.add(path, `list ${quote(set.name)} cannot contain itself; expected a hash set (list:set members must be hash sets)`);
          return;
        }
        if (setTypeInfo(memberType).kind === 'list') {
          c.add(
            path,
            `member ${quote(ref.data.name)} is a list (${memberType}); expected a hash set: lists of lists are not supported`,
          );
          return;
        }
        if (!declared.has(prefixed)) {
          c.add(path, `member set ${quote(ref.data.name)} of type ${memberType} is not declared; expected a set declared under sets`);
          return;
        }
        if (seen.has(prefixed)) return;
        seen.add(prefixed);
        memberSets.push(meta);
      });
    }
    sets.push({ type, name: set.name, members, memberSets, ...(family === undefined ? {} : { family }), ...(capacity === undefined ? {} : { capacity }) });
  });

  if (ownerOk && c.total === 0) {
    // Kernel names: the same check the manager makes, reported with the set's path.
    const owners = new Map<string, number>();
    raw.sets.forEach((set, i) => {
      const type = types[i];
      if (type === undefined) return;
      const prefixed = prefixedName({ type, name: set.name });
      try {
        const name = validateSetName(kernelName(prefixed, { owner, scheme }));
        const other = owners.get(name);
        if (other !== undefined) {
          c.add(
            ['sets', i],
            `set ${quote(set.name)} has the same kernel name ${quote(name)} as sets[${other}] under the ${scheme} scheme; expected distinct kernel names (rename one, or use sha256-base36)`,
          );
        } else owners.set(name, i);
      } catch (error) {
        c.add(['sets', i, 'name'], messageOf(error));
      }
    });
  }

  if (c.total > 0) return { ok: false, problems: c.problems, total: c.total, ...(c.total >= MAX_COUNTED_PROBLEMS ? { more: true } : {}) };
  return { ok: true, file: { owner, scheme, sets } };
}

/** Problems that get a line number (locating is a scan of the text; the rest are counted, not located). */
const LOCATED_PROBLEMS = 1000;

/** Problems shown in full in the error message; the rest are counted. */
const SHOWN_PROBLEMS = 50;

function pathKeys(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const part of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (part[2] !== undefined) keys.push(Number(part[2]));
    else if (part[1] !== undefined) keys.push(part[1]);
  }
  return keys;
}

/** Adds the line/column of each problem's value, walking up to the parent for a missing key. */
type Locator = (problems: FileProblem[]) => FileProblem[];

function jsonLocator(text: string): Locator {
  return (problems) => {
    const located = problems.slice(0, LOCATED_PROBLEMS);
    const wanted: (string | number)[][] = [];
    const chains = located.map((p) => {
      if (p.path === '(root)') return [];
      const keys = pathKeys(p.path);
      const chain: string[] = [];
      for (let n = keys.length; n > 0; n--) {
        wanted.push(keys.slice(0, n));
        chain.push(formatPath(keys.slice(0, n)));
      }
      return chain;
    });
    // One scan for all of them, one more for the line numbers: never a second parser.
    const offsets = locateJsonPaths(text, wanted);
    const positions = lineColumns(text, [...offsets.values()]);
    const out = located.map((p, i) => {
      for (const id of chains[i]!) {
        const offset = offsets.get(id);
        if (offset === undefined) continue;
        const pos = positions.get(offset)!;
        return { ...p, line: pos.line, column: pos.column };
      }
      return p;
    });
    return [...out, ...problems.slice(LOCATED_PROBLEMS)];
  };
}

function yamlLocator(doc: Document.Parsed, lineCounter: LineCounter): Locator {
  return (problems) =>
    problems.map((problem, i) => {
      if (problem.path === '(root)' || problem.line !== undefined || i >= LOCATED_PROBLEMS) return problem;
      const keys = pathKeys(problem.path);
      // Walk up until a node with a position exists (a missing key points at its parent).
      for (let n = keys.length; n > 0; n--) {
        const node: unknown = doc.getIn(keys.slice(0, n), true);
        if (isNode(node) && node.range) {
          const pos = lineCounter.linePos(node.range[0]);
          return { ...problem, line: pos.line, column: pos.col };
        }
      }
      return problem;
    });
}

/** The one error of a bad desired-state file: `INVALID_INPUT`, with `details.problems`. */
export function desiredFileError(source: string, problems: readonly FileProblem[], total = problems.length, more = false): IpsetsError {
  const name = cutText(source, 300);
  // One problem: one line that says what is wrong. More: a header, then the first ones in full, then a count.
  const text =
    total === 1 && problems.length === 1
      ? `${name}: 1 problem; nothing was applied: ${formatProblem(problems[0]!)}`
      : `${name}: ${more ? 'at least ' : ''}${formatCount(total)} problems; nothing was applied:\n${[
          ...problems.slice(0, SHOWN_PROBLEMS).map((p) => `  ${formatProblem(p)}`),
          ...(total > SHOWN_PROBLEMS ? [`  … and ${more ? 'at least ' : ''}${formatCount(total - Math.min(SHOWN_PROBLEMS, problems.length))} more${more ? ' (checking stopped there)' : ''}`] : []),
        ].join('\n')}`;
  return new IpsetsError('INVALID_INPUT', text, { details: { source, problems, total } });
}

/** `line 12:7, sets[3].members[0]: …` (the message cut to a readable length). */
export function formatProblem(problem: FileProblem): string {
  const where = problem.line === undefined ? '' : `line ${problem.line}:${problem.column ?? 1}, `;
  return `${where}${cutText(problem.path, 200)}: ${cutText(problem.message)}`;
}

/** `!!binary` for `tag:yaml.org,2002:binary`, other tags as written. */
function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

interface YamlPath {
  readonly key: string | number;
  readonly parent: YamlPath | undefined;
}

function yamlPath(path: YamlPath | undefined): string {
  const keys: (string | number)[] = [];
  for (let p = path; p !== undefined; p = p.parent) keys.push(p.key);
  return formatPath(keys.reverse());
}

/**
 * What JSON cannot say but YAML can, refused before the document becomes data:
 * duplicate keys (with their path; the parser would keep the last), tags (`!!binary`
 * yields bytes, `!foo` anything), non-string keys, nesting deeper than a desired file
 * needs. An explicit stack, not recursion: no document can overflow it.
 */
function yamlStructureProblems(doc: Document.Parsed, lineCounter: LineCounter): FileProblem[] {
  const problems: FileProblem[] = [];
  const at = (node: unknown) => {
    if (!isNode(node) || !node.range) return {};
    const pos = lineCounter.linePos(node.range[0]);
    return { line: pos.line, column: pos.col };
  };
  const add = (node: unknown, path: YamlPath | undefined, message: string) => {
    if (problems.length < LOCATED_PROBLEMS) problems.push({ path: yamlPath(path), ...at(node), message });
  };
  const stack: { node: unknown; path: YamlPath | undefined; depth: number }[] = [{ node: doc.contents, path: undefined, depth: 0 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (!isNode(node) || isAlias(node)) continue;
    if (node.tag !== undefined) {
      add(node, path, `the YAML tag ${quote(shortTag(node.tag))} is not accepted; expected plain strings, lists and mappings`);
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= MAX_JSON_DEPTH) {
      add(node, path, `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}`);
      continue;
    }
    if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i], path: { key: i, parent: path }, depth: depth + 1 });
      continue;
    }
    const seen = new Map<string, unknown>();
    const children: { node: unknown; path: YamlPath }[] = [];
    for (const pair of node.items) {
      const keyNode = pair.key;
      if (!isScalar(keyNode) || keyNode.tag !== undefined || (typeof keyNode.value !== 'string' && typeof keyNode.value !== 'number')) {
        add(keyNode ?? node, path, `a mapping key is ${isScalar(keyNode) ? (keyNode.tag === undefined ? `${typeof keyNode.value} ${quote(keyNode.value)}` : `tagged ${quote(shortTag(keyNode.tag))}`) : 'not a plain value'}; expected plain string keys`);
        continue;
      }
      const key = String(keyNode.value);
      const first = seen.get(key);
      if (first !== undefined) {
        const pos = at(first);
        add(keyNode, { key, parent: path }, `duplicate key ${quote(key)}${pos.line === undefined ? '' : ` (first at line ${pos.line}:${pos.column})`}; expected each key once (the last one would silently win)`);
        continue;
      }
      seen.set(key, keyNode);
      children.push({ node: pair.value, path: { key, parent: path } });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push({ ...children[i]!, depth: depth + 1 });
  }
  return problems;
}

/** Thrown out of the token stream when a document nests too deeply to be composed safely. */
class TooDeep extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

/**
 * Offset of the first collection nested deeper than {@link MAX_JSON_DEPTH} in a CST
 * token, or -1. The YAML composer recurses once per level, and on a nearly exhausted
 * stack V8 may abort the whole process (it reports a failed RegExp compile as out of
 * memory) instead of throwing: so depth is checked on the parser's tokens, which are
 * built without recursion, before the composer sees them.
 */
function cstTooDeep(token: CST.Token): number {
  const stack: { token: CST.Token | null | undefined; depth: number }[] = [{ token, depth: 0 }];
  while (stack.length > 0) {
    const { token: t, depth } = stack.pop()!;
    if (t === undefined || t === null) continue;
    if (t.type === 'document') {
      stack.push({ token: t.value, depth });
      continue;
    }
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    if (depth >= MAX_JSON_DEPTH) return t.offset;
    for (const item of t.items as { key?: CST.Token | null; value?: CST.Token }[]) {
      stack.push({ token: item.key, depth: depth + 1 }, { token: item.value, depth: depth + 1 });
    }
  }
  return -1;
}

function* depthChecked(tokens: Iterable<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    const deep = cstTooDeep(token);
    if (deep !== -1) throw new TooDeep(deep);
    yield token;
  }
}

/**
 * `yaml`'s parseDocument, with the parser's tokens checked for depth before they are
 * composed, and duplicate keys left to the structure walk (which reports their path).
 */
function composeYaml(text: string, lineCounter: LineCounter): Document.Parsed {
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer({ uniqueKeys: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(depthChecked(parser.parse(text)), true, text.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'more than one document'));
      break;
    }
  }
  return doc!;
}

/** Parses a YAML text to data, or the problems that refuse it (each one line). */
function parseYaml(text: string, source: string): { doc: unknown; locate: Locator } {
  const lineCounter = new LineCounter();
  let parsed: Document.Parsed;
  try {
    parsed = composeYaml(text, lineCounter);
  } catch (error) {
    if (error instanceof TooDeep) {
      const pos = lineCounter.linePos(error.offset);
      throw desiredFileError(source, [
        { path: '(root)', line: pos.line, column: pos.col, message: `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}` },
      ]);
    }
    // The parser guards its own recursion; this is the last line of defence.
    throw desiredFileError(source, [{ path: '(root)', message: `not valid YAML: ${error instanceof RangeError ? 'the document nests too deeply' : messageOf(error)}; expected ${ROOT_EXPECTED}` }]);
  }
  // Unresolved tags are reported with their path by the structure walk below.
  const syntax = [...parsed.errors, ...parsed.warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED')];
  if (syntax.length > 0) {
    throw desiredFileError(
      source,
      syntax.slice(0, SHOWN_PROBLEMS).map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        const message =
          e.code === 'MULTIPLE_DOCS'
            ? 'the file holds more than one YAML document (---); expected one document'
            : e.code === 'RESOURCE_EXHAUSTION'
              ? `the document nests too deeply; expected ${ROOT_EXPECTED}`
              : `not valid YAML: ${cutText(e.message.split('\n')[0] ?? '', 200)}; expected a valid YAML document`;
        return { path: '(root)', line: pos.line, column: pos.col, message };
      }),
    );
  }
  if (parsed.contents === null) return { doc: undefined, locate: (p) => p };
  const structure = yamlStructureProblems(parsed, lineCounter);
  if (structure.length > 0) throw desiredFileError(source, structure);
  let doc: unknown;
  try {
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const bomb = error instanceof ReferenceError && /alias/i.test(error.message);
    throw desiredFileError(source, [
      {
        path: '(root)',
        message: bomb
          ? 'YAML aliases expand too much (more than 100 copies of an anchor: an alias bomb); expected a document without exponential alias expansion'
          : `the YAML document cannot be read: ${messageOf(error)}; expected ${ROOT_EXPECTED}`,
      },
    ]);
  }
  return { doc, locate: yamlLocator(parsed, lineCounter) };
}

/** Parses a JSON text to data, refusing duplicate keys and deep nesting (each problem with its path). */
function parseJson(text: string, source: string): { doc: unknown; locate: Locator } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const message = messageOf(error);
    const at = /at position (\d+)/.exec(message);
    const pos = at === null ? undefined : lineColumns(text, [Number(at[1])]).get(Number(at[1]));
    throw desiredFileError(source, [
      { path: '(root)', ...(pos === undefined ? {} : { line: pos.line, column: pos.column }), message: `not valid JSON: ${cutText(message, 200)}; expected a valid JSON document` },
    ]);
  }
  // JSON.parse keeps the last of duplicate keys without a word; one more linear scan finds them.
  const structure = scanJsonStructure(text, MAX_JSON_DEPTH, LOCATED_PROBLEMS);
  if (structure.length > 0) {
    const positions = lineColumns(text, structure.flatMap((p) => (p.firstOffset === undefined ? [p.offset] : [p.offset, p.firstOffset])));
    throw desiredFileError(
      source,
      structure.map((p) => {
        const pos = positions.get(p.offset)!;
        const first = p.firstOffset === undefined ? undefined : positions.get(p.firstOffset);
        const message =
          p.kind === 'duplicate-key'
            ? `duplicate key ${quote(p.key)}${first === undefined ? '' : ` (first at line ${first.line}:${first.column})`}; expected each key once (the last one would silently win)`
            : `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}`;
        return { path: p.path, line: pos.line, column: pos.column, message };
      }),
    );
  }
  return { doc, locate: jsonLocator(text) };
}

function isBlankCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Parses and validates a desired-state text.
 *
 * @throws IpsetsError `INVALID_INPUT` listing every problem (with lines), when any value is bad.
 */
export function parseDesiredText(text: string, options: ParseDesiredOptions = {}): DesiredFile {
  const source = options.source ?? '(desired state)';
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let first = 0;
  while (first < body.length && isBlankCode(body.charCodeAt(first))) first++;
  if (first === body.length) {
    throw desiredFileError(source, [{ path: '(root)', message: `the file is empty; expected ${ROOT_EXPECTED}` }]);
  }
  const c0 = body.charCodeAt(first);
  const format = options.format ?? (c0 === 123 /* { */ || c0 === 91 /* [ */ ? 'json' : 'yaml');
  const { doc, locate } = format === 'json' ? parseJson(body, source) : parseYaml(body, source);
  if (doc === undefined) {
    throw desiredFileError(source, [{ path: '(root)', message: `the file holds no document (only comments or directives); expected ${ROOT_EXPECTED}` }]);
  }
  if (doc === null) throw desiredFileError(source, [{ path: '(root)', message: `got null; expected ${ROOT_EXPECTED}` }]);
  const result = validateDesiredDocument(doc);
  if (!result.ok) {
    // In file order, so a reader fixes them top to bottom (validation runs in passes).
    const located = locate(result.problems).map((p, i) => ({ p, i }));
    located.sort((a, b) => (a.p.line ?? Infinity) - (b.p.line ?? Infinity) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i);
    throw desiredFileError(source, located.map((x) => x.p), result.total, result.more === true);
  }
  return result.file;
}

/** Options of {@link loadDesiredFile}. */
export interface LoadDesiredOptions {
  /** Where `-` reads from (default process.stdin). */
  readonly stdin?: AsyncIterable<string | Buffer>;
  /** Largest file accepted, in bytes (default 256 MiB). */
  readonly limit?: number;
}

/**
 * Reads and validates a desired-state file (`.json`, `.yaml` or `.yml`; other names
 * are sniffed; `-` reads standard input). Only a regular file of at most 256 MiB of
 * UTF-8 is read.
 *
 * @throws IpsetsError `INVALID_INPUT` when the file cannot be read or any value is bad.
 */
export async function loadDesiredFile(path: string, options: LoadDesiredOptions = {}): Promise<DesiredFile> {
  const what = 'desired-state file';
  const read = { what, ...(options.limit === undefined ? {} : { limit: options.limit }) };
  const bytes = path === '-' ? await readInputStream(options.stdin ?? process.stdin, read) : await readInputFile(path, read);
  const source = path === '-' ? 'stdin' : path;
  const text = decodeUtf8(bytes, source, what);
  const ext = path === '-' ? '' : extname(path).toLowerCase();
  const format = ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  return parseDesiredText(text, { source, ...(format === undefined ? {} : { format }) });
}

/** A pod key for members that come from a file (the file has no pods). */
const FILE_POD_KEY = 'ipsets-file';

/**
 * Builds an IPSetManager (mode `all`) holding the file's sets through the manager's
 * public API: `createIPSets`, `addToSets` per member, `addToLists` per list.
 *
 * @throws IpsetsError `INVALID_INPUT` when the manager refuses a value (reported with its path).
 */
export function buildManager(file: DesiredFile): IPSetManager {
  const manager = new IPSetManager({ mode: 'all', owner: file.owner, scheme: file.scheme });
  file.sets.forEach((set, i) => {
    const meta: SetMetadata = { type: set.type, name: set.name, ...(set.family === undefined ? {} : { family: set.family }) };
    try {
      manager.createIPSets([meta]);
      for (const member of set.members) manager.addToSets([meta], member, FILE_POD_KEY);
      if (set.memberSets.length > 0) manager.addToLists([meta], set.memberSets);
    } catch (error) {
      if (!isIpsetsError(error)) throw error;
      throw desiredFileError('(desired state)', [{ path: formatPath(['sets', i]), message: messageOf(error) }]);
    }
  });
  return manager;
}

/**
 * The desired state of a file (through {@link buildManager}), with each set's
 * `maxelem`/`hashsize` from the file on its kernel set(s) — both families' of a set
 * without a family.
 */
export function desiredStateOf(file: DesiredFile): DesiredState {
  const desired = buildManager(file).desiredState();
  const capacities = new Map<string, SetCapacity>();
  for (const set of file.sets) {
    if (set.capacity === undefined) continue;
    const label = prefixedName({ type: set.type, name: set.name });
    capacities.set(label, set.capacity);
    capacities.set(label + INET6_NAME_SUFFIX, set.capacity);
  }
  if (capacities.size === 0) return desired;
  return {
    ...desired,
    sets: desired.sets.map((s) => {
      const capacity = s.label === undefined ? undefined : capacities.get(s.label);
      return capacity === undefined ? s : { ...s, ...capacity };
    }),
  };
}
