/**
 * Invariant checks for convergence tests: is the owned part of a kernel equal to a
 * desired state, are foreign sets untouched, does a report tell the truth.
 *
 * They read the kernel through `ipset save` text (or anything with a `save()` that
 * returns one, such as a `FakeKernel`) with their own small reader and their own idea
 * of what `-N name --exist <spec>` creates, instead of core's parser and planner: an
 * oracle that shares the code it checks would agree with its bugs.
 *
 * Failures throw an `Error` named `InvariantViolation` whose message lists, per set,
 * what differs (`-` desired but missing, `+` present but not desired).
 *
 * Why one file: the oracle must stay independent of core, so its own save reader, its own
 * create-spec table and the three checks that use them sit together; splitting them would
 * invite sharing code with what they check.
 */
import { canonicalMember } from '@ipsets/core';
import type { ApplyReport, CommandResult, CreateSpec, DesiredSet, DesiredState } from '@ipsets/core';

/** Where a check reads the kernel from: `ipset save` output, or something that prints it (a `FakeKernel`). */
export type SaveSource = string | { save(): CommandResult };

/** One set of a save dump, normalised for comparison. */
export interface CanonicalSet {
  name: string;
  /** Kernel type, e.g. `hash:net`. */
  type: string;
  /** Create options without `hashsize` and `initval` (they vary by growth and by random seed). */
  options: string;
  /** Hash sets: members sorted (the kernel prints hash order); list:set: members in list order. */
  members: string[];
}

/** Options of {@link assertConverged} and {@link convergenceProblems}. */
export interface ConvergedOptions {
  /** Sets named in `report.failedSets` and `report.inUseSets` are not checked. */
  report?: Pick<ApplyReport, 'failedSets' | 'inUseSets'>;
  /** More kernel names not to check. */
  except?: Iterable<string>;
}

/** Why one owned set is not in its desired state. */
export interface ConvergenceProblem {
  set: string;
  problem: string;
  /** Desired members the kernel set lacks. */
  missing?: string[];
  /** Kernel members that are not desired. */
  extra?: string[];
}

function violation(message: string, details: Record<string, unknown> = {}): Error {
  const error = new Error(message);
  error.name = 'InvariantViolation';
  Object.assign(error, { details });
  return error;
}

/** The save text of a source; a failed `save()` is itself a violation. */
export function saveTextOf(source: SaveSource): string {
  if (typeof source === 'string') return source;
  const result = source.save();
  if (result.exitCode !== 0 || result.signal !== undefined) {
    throw violation(`ipset save failed (exit ${result.exitCode}${result.signal ? `, ${result.signal}` : ''}): ${JSON.stringify(result.stderr)}`);
  }
  return result.stdout;
}

interface RawSet {
  name: string;
  type: string;
  options: string;
  members: string[];
  /** The exact create line and add lines, for byte comparisons. */
  text: string[];
}

/** Reads `ipset save` output; throws on anything that is not a create or add line. */
function readSave(text: string): RawSet[] {
  const sets: RawSet[] = [];
  const byName = new Map<string, RawSet>();
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line === '' && i === lines.length - 1) return;
    const words = line.split(' ');
    if (words[0] === 'create' && words.length >= 3) {
      const set: RawSet = { name: words[1]!, type: words[2]!, options: words.slice(3).join(' '), members: [], text: [line] };
      if (byName.has(set.name)) throw violation(`ipset save line ${i + 1} creates ${JSON.stringify(set.name)} a second time: ${JSON.stringify(line)}`);
      byName.set(set.name, set);
      sets.push(set);
      return;
    }
    if (words[0] === 'add' && words.length >= 3) {
      const set = byName.get(words[1]!);
      if (set === undefined) throw violation(`ipset save line ${i + 1} adds to ${JSON.stringify(words[1])} before its create line`);
      const options = words.slice(3);
      set.members.push(options.includes('nomatch') ? `${words[2]} nomatch` : words[2]!);
      set.text.push(line);
      return;
    }
    throw violation(`ipset save line ${i + 1} is not a create or add line: ${JSON.stringify(line)}`);
  });
  return sets;
}

/** Create options without the values that differ between equal sets (`hashsize` grows, `initval` is random). */
export function normalizeCreateOptions(options: string): string {
  const words = options.split(/\s+/).filter((w) => w !== '');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === 'hashsize' || words[i] === 'initval') {
      i++;
      continue;
    }
    out.push(words[i]!);
  }
  return out.join(' ');
}

/**
 * The sets of a save dump in dump order, normalised: options without `hashsize` and
 * `initval`, hash-set members sorted. `filter` keeps only the sets whose names pass.
 */
export function canonicalSave(text: string, filter?: (name: string) => boolean): CanonicalSet[] {
  return readSave(text)
    .filter((s) => filter === undefined || filter(s.name))
    .map((s) => ({
      name: s.name,
      type: s.type,
      options: normalizeCreateOptions(s.options),
      members: s.type === 'list:set' ? [...s.members] : [...s.members].sort(),
    }));
}

/** {@link canonicalSave} printed back as save text (one `create` line, then sorted `add` lines, per set). */
export function canonicalSaveText(text: string, filter?: (name: string) => boolean): string {
  let out = '';
  for (const s of canonicalSave(text, filter)) {
    out += `create ${s.name} ${s.type}${s.options === '' ? '' : ` ${s.options}`}\n`;
    for (const m of s.members) out += `add ${s.name} ${m}\n`;
  }
  return out;
}

// What `-N name --exist <spec>` creates on a kernel without the set (docs/ipset-semantics.md §5.1).
const EXPECTED: Readonly<Record<CreateSpec, { type: string; fields: Readonly<Record<string, string>> }>> = {
  nethash: { type: 'hash:net', fields: { family: 'inet', maxelem: '65536' } },
  'nethash maxelem 4294967295': { type: 'hash:net', fields: { family: 'inet', maxelem: '4294967295' } },
  'hash:ip,port': { type: 'hash:ip,port', fields: { family: 'inet', maxelem: '65536' } },
  'nethash family inet6': { type: 'hash:net', fields: { family: 'inet6', maxelem: '65536' } },
  'nethash family inet6 maxelem 4294967295': { type: 'hash:net', fields: { family: 'inet6', maxelem: '4294967295' } },
  'hash:ip,port family inet6': { type: 'hash:ip,port', fields: { family: 'inet6', maxelem: '65536' } },
  setlist: { type: 'list:set', fields: { size: '8' } },
};

const VALUED = new Set(['family', 'hashsize', 'maxelem', 'netmask', 'timeout', 'bucketsize', 'initval', 'size', 'markmask']);
// Options that make a set differ from what the spec creates (the kernel's same_set test).
const FORBIDDEN = ['netmask', 'timeout', 'counters', 'comment', 'skbinfo', 'markmask'];

function optionFields(options: string): Map<string, string> {
  const out = new Map<string, string>();
  const words = options.split(/\s+/).filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (VALUED.has(w)) out.set(w, words[++i] ?? '');
    else out.set(w, '');
  }
  return out;
}

function desiredMembers(set: DesiredSet): string[] {
  const expected = EXPECTED[set.spec];
  if (expected === undefined) throw violation(`desired set ${JSON.stringify(set.name)} has unknown spec ${JSON.stringify(set.spec)}`);
  if (expected.type === 'list:set') return [...new Set(set.members)].sort();
  const kind = expected.type as 'hash:net' | 'hash:ip,port';
  const family = expected.fields['family'] === 'inet6' ? 'inet6' : 'inet';
  return [...new Set(set.members.map((m) => canonicalMember(kind, m, family)))].sort();
}

function diff(want: readonly string[], have: readonly string[]): { missing: string[]; extra: string[] } {
  const w = new Set(want);
  const h = new Set(have);
  return { missing: want.filter((m) => !h.has(m)), extra: [...h].filter((m) => !w.has(m)) };
}

/** Why the kernel set `saved` (or its absence) differs from `want` (or its absence), or `undefined`. */
function problemOf(name: string, saved: RawSet | undefined, want: DesiredSet | undefined): ConvergenceProblem | undefined {
  if (want === undefined) {
    return saved === undefined ? undefined : { set: name, problem: `owned set exists (${saved.type}, ${saved.members.length} member(s)) but is not desired` };
  }
  if (saved === undefined) return { set: name, problem: `desired set (spec ${JSON.stringify(want.spec)}) is missing in the kernel` };
  const expected = EXPECTED[want.spec];
  if (saved.type !== expected.type) {
    return { set: name, problem: `kernel type ${JSON.stringify(saved.type)} but spec ${JSON.stringify(want.spec)} makes ${JSON.stringify(expected.type)}` };
  }
  const fields = optionFields(saved.options);
  for (const [field, specValue] of Object.entries(expected.fields)) {
    const value = field === 'maxelem' && want.maxelem !== undefined ? String(want.maxelem) : specValue;
    // Growth: a set whose desired members do not fit its maxelem may hold a larger one that they fit.
    const kernelValue = Number(fields.get(field));
    if (field === 'maxelem' && kernelValue > Number(value) && kernelValue >= new Set(want.members).size && new Set(want.members).size > Number(value)) continue;
    if (fields.get(field) !== value) {
      return { set: name, problem: `kernel ${field} ${JSON.stringify(fields.get(field) ?? '(absent)')} but spec ${JSON.stringify(want.spec)} makes ${field} ${value}` };
    }
  }
  if (want.hashsize !== undefined && !(Number(fields.get('hashsize')) >= want.hashsize)) {
    return { set: name, problem: `kernel hashsize ${JSON.stringify(fields.get('hashsize') ?? '(absent)')} is below the desired hashsize ${want.hashsize}` };
  }
  for (const f of FORBIDDEN) {
    if (fields.has(f)) return { set: name, problem: `kernel set has option ${JSON.stringify(f)}, which spec ${JSON.stringify(want.spec)} does not create` };
  }
  const have = saved.type === 'list:set' ? [...saved.members] : [...saved.members].sort();
  const duplicates = have.length !== new Set(have).size;
  const { missing, extra } = diff(desiredMembers(want), have);
  if (missing.length === 0 && extra.length === 0 && !duplicates) return undefined;
  const p: ConvergenceProblem = { set: name, problem: duplicates ? 'members differ (kernel holds duplicates)' : 'members differ' };
  if (missing.length > 0) p.missing = missing;
  if (extra.length > 0) p.extra = extra;
  return p;
}

/**
 * The ownership rule, written out again here so that the oracle shares no code with
 * the core it checks: the owner prefix followed by one or more of 0-9 and a-z, nothing
 * else, at most 31 characters in all. The bare prefix and look-alikes are foreign.
 */
function ownedBy(name: string, owner: string): boolean {
  if (owner === '' || !name.startsWith(owner) || name.length > 31) return false;
  return /^[0-9a-z]+$/.test(name.slice(owner.length));
}

function ownedState(text: string, desired: DesiredState): { kernel: Map<string, RawSet>; wanted: Map<string, DesiredSet>; names: string[] } {
  const kernel = new Map<string, RawSet>();
  for (const s of readSave(text)) if (ownedBy(s.name, desired.owner)) kernel.set(s.name, s);
  const wanted = new Map<string, DesiredSet>();
  for (const s of desired.sets) {
    if (!ownedBy(s.name, desired.owner)) throw violation(`desired set ${JSON.stringify(s.name)} is not owned by ${JSON.stringify(desired.owner)}`);
    wanted.set(s.name, s);
  }
  // Desired order first, then kernel-only sets in dump order: stable messages.
  const names = [...wanted.keys(), ...[...kernel.keys()].filter((n) => !wanted.has(n))];
  return { kernel, wanted, names };
}

/**
 * Every owned set (name starts with `desired.owner`) that is not exempt and differs
 * from `desired`: missing, present but undesired, wrong type or options, or with
 * other members (hash sets compared sorted and canonical, lists as sets of names).
 */
export function convergenceProblems(source: SaveSource, desired: DesiredState, options: ConvergedOptions = {}): ConvergenceProblem[] {
  const { kernel, wanted, names } = ownedState(saveTextOf(source), desired);
  const exempt = new Set<string>([...(options.report?.failedSets ?? []), ...(options.report?.inUseSets ?? []), ...(options.except ?? [])]);
  const problems: ConvergenceProblem[] = [];
  for (const name of names) {
    if (exempt.has(name)) continue;
    const p = problemOf(name, kernel.get(name), wanted.get(name));
    if (p !== undefined) problems.push(p);
  }
  return problems;
}

function formatProblems(problems: readonly ConvergenceProblem[], labels: ReadonlyMap<string, string>): string {
  const out: string[] = [];
  for (const p of problems) {
    const label = labels.get(p.set);
    out.push(`  ${p.set}${label === undefined ? '' : ` (${label})`}: ${p.problem}`);
    for (const m of p.missing ?? []) out.push(`    - ${m}    (desired, missing in the kernel)`);
    for (const m of p.extra ?? []) out.push(`    + ${m}    (in the kernel, not desired)`);
  }
  return out.join('\n');
}

function labelsOf(desired: DesiredState): Map<string, string> {
  const labels = new Map<string, string>();
  for (const s of desired.sets) if (s.label !== undefined) labels.set(s.name, s.label);
  return labels;
}

/**
 * Asserts that every owned set equals its desired state (see {@link convergenceProblems}),
 * except the sets a report names as failed or in use (`options.report`) and `options.except`.
 *
 * @throws Error `InvariantViolation` listing each differing set with a member diff.
 */
export function assertConverged(source: SaveSource, desired: DesiredState, options: ConvergedOptions = {}): void {
  const problems = convergenceProblems(source, desired, options);
  if (problems.length === 0) return;
  throw violation(
    `assertConverged: ${problems.length} owned set(s) differ from the desired state (owner ${JSON.stringify(desired.owner)}):\n${formatProblems(problems, labelsOf(desired))}`,
    { problems },
  );
}

function foreignBlocks(text: string, owner: string): { name: string; text: string }[] {
  return readSave(text)
    .filter((s) => !ownedBy(s.name, owner))
    .map((s) => ({ name: s.name, text: s.text.join('\n') }));
}

/**
 * Asserts that the foreign sets (names not starting with `owner`) of two save dumps are
 * byte-identical: the same sets in the same relative order, each with the same create
 * line and the same add lines in the same order.
 *
 * @throws Error `InvariantViolation` naming the first differing foreign set with both versions.
 */
export function assertForeignUntouched(beforeSave: SaveSource, afterSave: SaveSource, owner: string): void {
  if (owner === '') throw violation('assertForeignUntouched: an empty owner owns every set; expected a prefix such as "azure-npm-"');
  const before = foreignBlocks(saveTextOf(beforeSave), owner);
  const after = foreignBlocks(saveTextOf(afterSave), owner);
  const n = Math.max(before.length, after.length);
  for (let i = 0; i < n; i++) {
    const b = before[i];
    const a = after[i];
    if (b !== undefined && a !== undefined && b.name === a.name && b.text === a.text) continue;
    const beforeNames = before.map((s) => s.name).join(', ');
    const afterNames = after.map((s) => s.name).join(', ');
    const detail =
      b !== undefined && a !== undefined && b.name === a.name
        ? `foreign set ${JSON.stringify(b.name)} changed:\n--- before\n${b.text}\n+++ after\n${a.text}`
        : `foreign sets differ at position ${i + 1}: before [${beforeNames}], after [${afterNames}]`;
    throw violation(`assertForeignUntouched (owner ${JSON.stringify(owner)}): ${detail}`, { before, after });
  }
}

/**
 * Sets whose kernel state a session cannot know: those with a line in an attempt that
 * ended by a signal or a crash, or that could not be run to the end (exit code -1: the
 * port rejected, a timeout, an abort). Some of their lines may have been applied
 * although the report counts none of them.
 */
export function uncertainSets(report: Partial<Pick<ApplyReport, 'plan' | 'attempts'>>): Set<string> {
  const out = new Set<string>();
  if (report.plan === undefined || report.attempts === undefined) return out;
  for (const a of report.attempts) {
    if (a.signal === undefined && a.error?.kind !== 'crash' && a.exitCode !== -1) continue;
    for (const i of a.lineIndices) {
      const line = report.plan.lines[i];
      if (line !== undefined) out.add(line.set);
    }
  }
  return out;
}

/** Options of {@link assertReportTruthful}. */
export interface TruthfulOptions {
  /**
   * Sets that may be reported failed although they are in their desired state (a known,
   * harmless false alarm the caller has identified, e.g. a skipped line whose effect a
   * later line achieved anyway). They must still be reported failed or converged.
   */
  tolerateFailed?: Iterable<string>;
}

/**
 * Asserts that a report tells the truth about the kernel: every set named in
 * `report.failedSets` really is not in its desired state; every owned set it does not
 * name (in `failedSets` or `inUseSets`) is; every set in `inUseSets` still exists; and
 * `report.converged` holds exactly when nothing failed and the session was not fatal.
 * A list reported failed while one of its member sets is not in its desired state is
 * a true report (a list is only as converged as its members).
 *
 * A set with a line in an attempt that ended by a signal (a crash, exit without a
 * result) may have reached its desired state without the session knowing: for such
 * sets `failedSets` means "not known to be converged" and `inUseSets` "not known to be
 * destroyed": only the other claims are checked (see {@link uncertainSets}).
 *
 * @throws Error `InvariantViolation` listing every untrue claim.
 */
export function assertReportTruthful(
  report: Pick<ApplyReport, 'converged' | 'failedSets' | 'inUseSets' | 'fatal'> & Partial<Pick<ApplyReport, 'plan' | 'attempts'>>,
  source: SaveSource,
  desired: DesiredState,
  options: TruthfulOptions = {},
): void {
  const { kernel, wanted, names } = ownedState(saveTextOf(source), desired);
  const failed = new Set(report.failedSets);
  const inUse = new Set(report.inUseSets);
  const uncertain = uncertainSets(report);
  for (const name of options.tolerateFailed ?? []) uncertain.add(name);
  const lies: string[] = [];
  // A list is only as converged as its member sets: one whose member set is not in its
  // desired state matches the wrong packets even when its member names are right (its
  // planned relink of that member was skipped along with the member's failed rebuild),
  // so reporting it failed is true.
  const holdsUnconvergedSet = (name: string): boolean => {
    const want = wanted.get(name);
    return want?.spec === 'setlist' && want.members.some((member) => problemOf(member, kernel.get(member), wanted.get(member)) !== undefined);
  };
  for (const name of report.failedSets) {
    if (!ownedBy(name, desired.owner)) {
      lies.push(`  ${name}: reported failed, but it is not owned by ${JSON.stringify(desired.owner)}`);
      continue;
    }
    if (!uncertain.has(name) && problemOf(name, kernel.get(name), wanted.get(name)) === undefined && !holdsUnconvergedSet(name)) {
      lies.push(`  ${name}: reported failed, but it is in its desired state`);
    }
  }
  for (const name of report.inUseSets) {
    if (!kernel.has(name) && !uncertain.has(name)) lies.push(`  ${name}: reported in use (not destroyed), but it is not in the kernel`);
  }
  const unreported: ConvergenceProblem[] = [];
  for (const name of names) {
    if (failed.has(name) || inUse.has(name)) continue;
    const p = problemOf(name, kernel.get(name), wanted.get(name));
    if (p !== undefined) unreported.push(p);
  }
  if (unreported.length > 0) lies.push(`  not reported but not converged:\n${formatProblems(unreported, labelsOf(desired))}`);
  const shouldConverge = report.failedSets.length === 0 && report.fatal === undefined;
  if (report.converged !== shouldConverge) {
    lies.push(`  converged is ${report.converged}, but failedSets has ${report.failedSets.length} set(s) and fatal is ${report.fatal === undefined ? 'absent' : JSON.stringify(report.fatal.message)}`);
  }
  if (lies.length > 0) throw violation(`assertReportTruthful: the report is not truthful:\n${lies.join('\n')}`, { lies });
}
