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
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { LineCounter, parseDocument, isNode } from 'yaml';
import { z } from 'zod';
import {
  IPSetManager,
  DIGEST_LENGTH,
  IpsetsError,
  MAX_KERNEL_NAME_LENGTH,
  NAMING_SCHEMES,
  SET_TYPES,
  canonicalMemberForType,
  isIpsetsError,
  kernelName,
  memberFamily,
  prefixedName,
  quote,
  setTypeInfo,
  validateOwner,
  validateSetName,
  validateUnprefixedName,
} from '@ipsets/core';
import type { DesiredState, NamingScheme, SetMetadata, SetType } from '@ipsets/core';

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
  set: 'type, name, members',
  ref: 'type, name',
};

function zodIssueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `got ${describeValue(issue.input)}; expected ${issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'a mapping' : `a ${issue.expected}`}`;
    case 'unrecognized_keys': {
      const depth = issue.path.length;
      const where = depth === 0 ? '(root)' : depth === 2 ? 'set' : 'ref';
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => quote(k)).join(', ')}; expected only ${EXPECTED_KEYS[where]}`;
    }
    default:
      return issue.message;
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

interface Collector {
  problems: FileProblem[];
  add(path: readonly PropertyKey[], message: string): void;
}

function collector(): Collector {
  const problems: FileProblem[] = [];
  return { problems, add: (path, message) => problems.push({ path: formatPath(path), message }) };
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
  if (error instanceof Error) return error.message.replace(/\.$/, '');
  return String(error);
}

/**
 * Validates a parsed document (the result of `JSON.parse` or YAML) and returns the
 * desired file, or the full list of problems.
 */
export function validateDesiredDocument(
  doc: unknown,
): { ok: true; file: DesiredFile } | { ok: false; problems: FileProblem[] } {
  const parsed = fileSchema.safeParse(doc, { reportInput: true });
  const c = collector();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) c.add(issue.path, zodIssueMessage(issue));
    return { ok: false, problems: c.problems };
  }
  const raw: RawFile = parsed.data;

  const owner = raw.owner ?? DEFAULT_FILE_OWNER;
  let scheme: NamingScheme = 'sha256-base36';
  if (raw.scheme !== undefined) {
    if ((NAMING_SCHEMES as readonly string[]).includes(raw.scheme)) scheme = raw.scheme as NamingScheme;
    else c.add(['scheme'], `unknown naming scheme ${quote(raw.scheme)}; expected one of ${NAMING_SCHEMES.join(', ')}`);
  }
  let ownerOk = true;
  if (raw.owner !== undefined) {
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
    if (kind === 'set') {
      const seen = new Map<string, number>();
      set.members.forEach((member, j) => {
        const path = ['sets', i, 'members', j];
        if (typeof member !== 'string') {
          c.add(path, `got ${describeValue(member)}; expected a member string like ${type === 'namedPorts' ? '"10.0.0.1,tcp:80"' : '"10.0.0.1" or "10.0.0.0/24 nomatch"'}`);
          return;
        }
        let canonical: string;
        try {
          // An IPv6 member goes to the set's family inet6 sibling (the manager routes it there).
          canonical = canonicalMemberForType(type, member, memberFamily(member));
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
    sets.push({ type, name: set.name, members, memberSets });
  });

  if (ownerOk && c.problems.length === 0) {
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

  if (c.problems.length > 0) return { ok: false, problems: c.problems };
  return { ok: true, file: { owner, scheme, sets } };
}

/** Finds 1-based line/column of each problem's value in the text (best effort). */
function locate(text: string, problems: FileProblem[]): FileProblem[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  return problems.map((problem) => {
    if (problem.path === '(root)') return problem;
    const keys: (string | number)[] = [];
    for (const part of problem.path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
      if (part[2] !== undefined) keys.push(Number(part[2]));
      else if (part[1] !== undefined) keys.push(part[1]);
    }
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
export function desiredFileError(source: string, problems: readonly FileProblem[]): IpsetsError {
  const shown = problems.slice(0, 50).map((p) => `  ${formatProblem(p)}`);
  if (problems.length > shown.length) shown.push(`  … and ${problems.length - shown.length} more`);
  return new IpsetsError(
    'INVALID_INPUT',
    `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was applied:\n${shown.join('\n')}`,
    { details: { source, problems } },
  );
}

/** `line 12:7, sets[3].members[0]: …`. */
export function formatProblem(problem: FileProblem): string {
  const where = problem.line === undefined ? '' : `line ${problem.line}:${problem.column ?? 1}, `;
  return `${where}${problem.path}: ${problem.message}`;
}

/**
 * Parses and validates a desired-state text.
 *
 * @throws IpsetsError `INVALID_INPUT` listing every problem (with lines), when any value is bad.
 */
export function parseDesiredText(text: string, options: ParseDesiredOptions = {}): DesiredFile {
  const source = options.source ?? '(desired state)';
  const trimmed = text.trimStart();
  const format = options.format ?? (trimmed.startsWith('{') || trimmed.startsWith('[') ? 'json' : 'yaml');
  let doc: unknown;
  if (format === 'json') {
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw desiredFileError(source, [{ path: '(root)', message: `not valid JSON: ${messageOf(error)}` }]);
    }
  } else {
    const lineCounter = new LineCounter();
    const parsed = parseDocument(text, { lineCounter, prettyErrors: false });
    if (parsed.errors.length > 0) {
      throw desiredFileError(
        source,
        parsed.errors.map((e) => {
          const pos = lineCounter.linePos(e.pos[0]);
          return { path: '(root)', line: pos.line, column: pos.col, message: `not valid YAML: ${e.message.split('\n')[0]}` };
        }),
      );
    }
    doc = parsed.toJS({ maxAliasCount: 100 });
  }
  if (doc === null || doc === undefined) {
    throw desiredFileError(source, [{ path: '(root)', message: 'the file is empty; expected a mapping with a sets list' }]);
  }
  const result = validateDesiredDocument(doc);
  if (!result.ok) {
    // In file order, so a reader fixes them top to bottom (validation runs in passes).
    const located = locate(text, result.problems).map((p, i) => ({ p, i }));
    located.sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i);
    throw desiredFileError(source, located.map((x) => x.p));
  }
  return result.file;
}

/**
 * Reads and validates a desired-state file (`.json`, `.yaml` or `.yml`; other names
 * are sniffed).
 *
 * @throws IpsetsError `INVALID_INPUT` when the file cannot be read or any value is bad.
 */
export async function loadDesiredFile(path: string): Promise<DesiredFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new IpsetsError('INVALID_INPUT', `cannot read desired-state file ${quote(path)}: ${messageOf(error)}`, {
      cause: error,
      details: { source: path, problems: [] },
    });
  }
  const ext = extname(path).toLowerCase();
  const format = ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  return parseDesiredText(text, { source: path, ...(format === undefined ? {} : { format }) });
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
    const meta: SetMetadata = { type: set.type, name: set.name };
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

/** The desired state of a file (through {@link buildManager}). */
export function desiredStateOf(file: DesiredFile): DesiredState {
  return buildManager(file).desiredState();
}
