/**
 * Validation of a parsed desired-state document (the data `JSON.parse` or YAML made
 * of it): the shape once with zod, then every member with core's member check
 * (`SetMembers.check`), so the command and the library accept exactly the
 * same members. A file with any problem yields nothing: callers never apply half a file.
 *
 * Why one file: it is the one pass that turns a document into a checked desired file,
 * collecting every problem with its path (shape, members, list members, owner, naming,
 * kernel-name collisions); the checks share the path bookkeeping and the problem list.
 */
import { z } from 'zod';
import {
  DEFAULT_NAMING_SCHEME,
  DIGEST_LENGTH,
  MAX_KERNEL_NAME_LENGTH,
  NAMING_SCHEMES,
  SET_TYPES,
  SetMembers,
  isSetType,
  kernelName,
  prefixedName,
  setTypeInfo,
  validateCapacity,
  validateOwner,
  validateSetName,
  validateUnprefixedName,
} from '@ipsets/core';
import type { AddressFamily, NamingScheme, SetCapacity, SetMetadata, SetType } from '@ipsets/core';
import { MAX_COUNTED_PROBLEMS, ROOT_EXPECTED, collector, describeValue, formatPath, messageOf } from './problems.js';
import type { Collector, FileProblem } from './problems.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import { cutText, formatCount, quoteCut as quote } from '../format.js';

/** Longest unprefixed set name a file may use: core's rule (Kubernetes `key:value` labels fit with room to spare). */
export { MAX_SET_NAME_LENGTH } from '@ipsets/core';

/**
 * The owner prefix when a file names none (and the caller gives none): the command's
 * own, `ipsets-`, never another product's. Azure NPM's `azure-npm-` (core's
 * `DEFAULT_OWNER`) is used when a file says `owner: azure-npm-` or the caller passes it.
 */
export const DEFAULT_FILE_OWNER = DEFAULT_CLI_OWNER;

/** Options of {@link validateDesiredDocument}. */
export interface ValidateDesiredOptions {
  /**
   * The owner prefix the caller asks for (the command's `--owner`): used when the file
   * names none; a file that names another one is refused (default {@link DEFAULT_FILE_OWNER}
   * for files that name none).
   */
  readonly owner?: string;
  /** How messages name where {@link ValidateDesiredOptions.owner} came from (default `the owner option`; the command says `--owner`). */
  readonly ownerSource?: string;
  /**
   * The document is one part of a desired state made of parts: a list's member set
   * may be declared in another part. Such members are returned in `external` instead
   * of being refused, for the caller to check against the other parts.
   */
  readonly externalSets?: boolean;
}

/** A list's member set that the document does not declare (see {@link ValidateDesiredOptions.externalSets}). */
export interface ExternalSetRef {
  /** Where the reference is, e.g. `sets[3].members[1]`. */
  readonly path: string;
  readonly type: SetType;
  readonly name: string;
  /** 1-based line and column in the text, when known. */
  readonly line?: number;
  readonly column?: number;
}

/** One declared set, validated: hash-set members canonical, list members as set metadata. */
export interface DesiredFileSet {
  readonly type: SetType;
  /** Unprefixed name. */
  readonly name: string;
  /** Hash sets: canonical members (duplicates removed, first occurrence kept). */
  readonly members: readonly string[];
  /**
   * Hash sets: the members as core checked them (`all` is {@link members}), split by
   * family. The desired state takes them as they are while `checkedMembers.all` is
   * still `members`; a set made or edited by hand without them is checked again.
   */
  readonly checkedMembers?: SetMembers;
  /** Lists: member sets (each declared as a hash set in the same file, or in another part of a desired state made of parts). */
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

const setTypeValues = SET_TYPES as readonly SetType[];
const typeList = setTypeValues.join(', ');

const setRefSchema = z
  .object({
    type: z.string(),
    name: z.string(),
  })
  .strict();

/**
 * A list, checked by reference: `z.array` copies the list it checks, element by
 * element (a million members in a node-sized file); the members are checked below.
 */
const memberList = z.custom<unknown[]>((value) => Array.isArray(value), { params: { expected: 'list' } });

// Loose objects: an unknown key is one problem among the others (checked by hand below),
// never a reason to stop before the members are checked.
const setSchema = z.looseObject({
  type: z.string(),
  name: z.string(),
  members: memberList.optional(),
  family: z.string().optional(),
  maxelem: z.unknown().optional(),
  hashsize: z.unknown().optional(),
});

const fileSchema = z.looseObject({
  owner: z.string().optional(),
  scheme: z.string().optional(),
  sets: z.array(z.unknown()),
});

type RawSet = z.infer<typeof setSchema>;

const EXPECTED_KEYS = {
  '(root)': ['owner', 'scheme', 'sets'],
  set: ['type', 'name', 'members', 'family', 'maxelem', 'hashsize'],
  ref: ['type', 'name'],
} as const;

/** `unknown key "extra"; expected only type, name, …` (at most ten keys quoted). */
function unknownKeysMessage(keys: readonly string[], where: keyof typeof EXPECTED_KEYS): string {
  const quoted = keys.slice(0, 10).map((k) => quote(k)).join(', ') + (keys.length > 10 ? ` and ${formatCount(keys.length - 10)} more` : '');
  return `unknown key${keys.length > 1 ? 's' : ''} ${quoted}; expected only ${EXPECTED_KEYS[where].join(', ')}`;
}

/** Adds one problem for the keys of `value` that a `where` mapping does not have. */
function checkKnownKeys(c: Collector, path: readonly PropertyKey[], value: object, where: keyof typeof EXPECTED_KEYS): void {
  const allowed: readonly string[] = EXPECTED_KEYS[where];
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  // A parser may make "__proto__" an own key that Object.keys sees but `in`-style checks miss: it is unknown like any other.
  if (unknown.length > 0) c.add(path, () => unknownKeysMessage(unknown, where));
}


/**
 * A refused member longer than this is refused for its length (no valid spelling is
 * that long: the longest, an IPv6 member with leading zeros and a dotted tail, has 59).
 */
const MAX_MEMBER_LENGTH = 64;

function zodIssueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.path.length === 0) return `got ${describeValue(issue.input)}; expected ${ROOT_EXPECTED}`;
      return `got ${describeValue(issue.input)}; expected ${issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'a mapping' : `a ${issue.expected}`}`;
    case 'unrecognized_keys':
      // Only the strict schema of a list's member set reports these.
      return unknownKeysMessage(issue.keys, 'ref');
    case 'custom':
      if (issue.params?.['expected'] === 'list') return `got ${describeValue(issue.input)}; expected a list`;
      return cutText(issue.message, 300);
    default:
      return cutText(issue.message, 300);
  }
}

function checkType(c: Collector, path: readonly PropertyKey[], type: string): SetType | undefined {
  if (isSetType(type)) return type;
  c.add(path, `unknown set type ${quote(type)}; expected one of ${typeList}`);
  return undefined;
}

function checkName(c: Collector, path: readonly PropertyKey[], name: string): boolean {
  try {
    // Core's rule and message: the file accepts exactly the names the manager accepts.
    validateUnprefixedName(name);
    return true;
  } catch (error) {
    c.add(path, messageOf(error));
    return false;
  }
}

/**
 * Validates a parsed document (the result of `JSON.parse` or YAML) and returns the
 * desired file, or the full list of problems: a problem in one place (an unknown key,
 * a set whose name is not a string) never hides the problems elsewhere, members included.
 */
export function validateDesiredDocument(
  doc: unknown,
  options: ValidateDesiredOptions = {},
): { ok: true; file: DesiredFile; external?: ExternalSetRef[] } | { ok: false; problems: FileProblem[]; total: number; more?: true } {
  const parsed = fileSchema.safeParse(doc, { reportInput: true });
  const c = collector();
  if (!parsed.success) {
    // The document itself is not a mapping with a sets list: there is nothing more to check.
    for (const issue of parsed.error.issues) c.add(issue.path, () => zodIssueMessage(issue));
    return { ok: false, problems: c.problems, total: c.total };
  }
  const raw = parsed.data;
  // The keys of the document itself: zod's copy drops a "__proto__" key (it becomes the copy's prototype).
  checkKnownKeys(c, [], doc as object, '(root)');
  // Each set on its own: a set of the wrong shape is reported and left out of the checks
  // that need its type and name; every other set is still checked to its last member.
  const rawSets: (RawSet | undefined)[] = raw.sets.map((value, i) => {
    const set = setSchema.safeParse(value, { reportInput: true });
    if (!set.success) {
      for (const issue of set.error.issues) c.add(['sets', i, ...issue.path], () => zodIssueMessage(issue));
      return undefined;
    }
    checkKnownKeys(c, ['sets', i], value as object, 'set');
    return set.data;
  });

  const ownerSource = options.ownerSource ?? 'the owner option';
  if (raw.owner !== undefined && options.owner !== undefined && raw.owner !== options.owner) {
    c.add(
      ['owner'],
      `owner prefix ${quote(raw.owner)} differs from ${quote(options.owner)} given by ${ownerSource}; expected the same owner in both, or only one of them`,
    );
  }
  const owner = raw.owner ?? options.owner ?? DEFAULT_FILE_OWNER;
  let scheme: NamingScheme = DEFAULT_NAMING_SCHEME;
  if (raw.scheme !== undefined) {
    if ((NAMING_SCHEMES as readonly string[]).includes(raw.scheme)) scheme = raw.scheme as NamingScheme;
    else c.add(['scheme'], `unknown naming scheme ${quote(raw.scheme)}; expected one of ${NAMING_SCHEMES.join(', ')}`);
  }
  let ownerOk = true;
  // The default needs no check; a caller's owner is checked against the file's scheme here (its digest length).
  const ownerNamed = raw.owner ?? options.owner;
  if (ownerNamed !== undefined && ownerNamed.length > MAX_KERNEL_NAME_LENGTH) {
    // Cut here: core's message would quote the whole value.
    c.add(['owner'], `owner prefix ${quote(owner)} is ${formatCount(owner.length)} characters long; expected an owner prefix of at most ${MAX_KERNEL_NAME_LENGTH - DIGEST_LENGTH[scheme]} characters`);
    ownerOk = false;
  } else if (ownerNamed !== undefined) {
    try {
      // Core's rule: a usable kernel-name start that leaves room for the digest within 31 characters.
      validateOwner(owner, scheme);
    } catch (error) {
      const longest = MAX_KERNEL_NAME_LENGTH - DIGEST_LENGTH[scheme];
      const message = messageOf(error);
      const text = /expected/.test(message) ? message : `${message}; expected an owner prefix of at most ${longest} characters`;
      c.add(['owner'], raw.owner === undefined ? `${text} (given by ${ownerSource})` : text);
      ownerOk = false;
    }
  }

  // First pass: types and names, so list members can be checked against declared sets.
  const declared = new Map<string, { index: number; type: SetType }>();
  const types: (SetType | undefined)[] = [];
  rawSets.forEach((set, i) => {
    if (set === undefined) {
      types.push(undefined);
      return;
    }
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
  const external: ExternalSetRef[] = [];
  rawSets.forEach((set, i) => {
    const type = types[i];
    if (type === undefined || set === undefined) return;
    const kind = setTypeInfo(type).kind;
    let checked: SetMembers | undefined;
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
      // Core checks the members (its grammar, one per kernel entry, routed to the set's
      // families) in one plain loop; this handler runs for problems only.
      const list = set.members ?? [];
      if (c.total < MAX_COUNTED_PROBLEMS && list.length > 0) {
        const like = type === 'namedPorts' ? '"10.0.0.1,tcp:80"' : '"10.0.0.1" or "10.0.0.0/24 nomatch"';
        checked = SetMembers.check({ type, name: set.name, ...(family === undefined ? {} : { family }) }, list, (j, error) => {
          const member = list[j];
          const path = ['sets', i, 'members', j];
          if (typeof member !== 'string') c.add(path, `got ${describeValue(member)}; expected a member string like ${like}`);
          else if (member.length > MAX_MEMBER_LENGTH) {
            c.add(path, `member ${quote(member)} is ${formatCount(member.length)} characters long; expected a member string of at most ${MAX_MEMBER_LENGTH} characters like ${like}`);
          } else if (error.details['reason'] === 'same-entry') {
            // A CIDR and the same CIDR with nomatch are one kernel entry: the file must pick one.
            c.add(path, `member ${quote(member)} is the same kernel entry as ${quote(String(error.details['earlier']))} (sets[${i}].members, earlier); expected one of them (nomatch is an attribute of the entry)`);
          } else c.add(path, messageOf(error));
          return c.total < MAX_COUNTED_PROBLEMS;
        });
      }
    } else {
      const seen = new Set<string>();
      (set.members ?? []).forEach((member, j) => {
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
        const local = declared.has(prefixed);
        if (!local && options.externalSets !== true) {
          c.add(path, `member set ${quote(ref.data.name)} of type ${memberType} is not declared; expected a set declared under sets`);
          return;
        }
        if (seen.has(prefixed)) return;
        seen.add(prefixed);
        if (!local) external.push({ path: formatPath(path), type: memberType, name: ref.data.name });
        memberSets.push(meta);
      });
    }
    sets.push({
      type,
      name: set.name,
      members: checked?.all ?? [],
      memberSets,
      ...(checked === undefined ? {} : { checkedMembers: checked }),
      ...(family === undefined ? {} : { family }),
      ...(capacity === undefined ? {} : { capacity }),
    });
  });

  if (ownerOk && c.total === 0) {
    // Kernel names: the same check the manager makes, reported with the set's path.
    const owners = new Map<string, number>();
    rawSets.forEach((set, i) => {
      const type = types[i];
      if (type === undefined || set === undefined) return;
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
  return { ok: true, file: { owner, scheme, sets }, ...(external.length === 0 ? {} : { external }) };
}

