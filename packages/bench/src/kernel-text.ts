/**
 * K1: the kernel's cost of the project's restore text against the text `ipset save`
 * prints for the same sets. Both texts make the same sets with the same members; they
 * differ in spelling (`-N name --exist nethash` / `-A` against `create … family inet
 * hashsize … maxelem … bucketsize … initval …` / `add`) and in member order. Only the
 * initial `hashsize` changes what the kernel does (a set that starts smaller rehashes
 * as it grows), so the save text is given, per set, the hashsize the project's text
 * creates it with before the two are compared. Every restore runs in a fresh network
 * namespace this process creates and deletes (never the default namespace).
 */
import { DEFAULT_HASHSIZE, parseListHeaders } from '@ipsets/core';
import type { CliBenchContext, CliComparison } from './cli-rows.js';
import { createNamespace, expectOk } from './kernel.js';
import { collect, formatCount, formatMs } from './stats.js';

/** Commands that create a set, as the project's renderer and `ipset save` spell them. */
const CREATE = new Set(['-N', 'create']);

/** True for a hash type in either spelling (`hash:net`, the older `nethash`); false for `list:set` / `setlist`. */
function isHashType(type: string | undefined): boolean {
  return type !== undefined && (type.startsWith('hash:') || /^[a-z]+hash$/.test(type));
}

/** The words of a restore line (ipset splits on blanks; none of these lines has quoted words). */
function words(line: string): string[] {
  return line.trim().split(/[ \t]+/);
}

/** Index of the first word after the set name that is not an option (`--exist`, `-exist`): the set type. */
function typeIndex(tokens: readonly string[]): number {
  let i = 2;
  while (i < tokens.length && tokens[i]!.startsWith('-')) i += 1;
  return i;
}

/**
 * The initial `hashsize` of every hash set a restore text creates: the value its
 * create line names, or the kernel's default ({@link DEFAULT_HASHSIZE}) when it names
 * none. Sets of other types (`list:set`) have no hashsize and are not in the map.
 */
export function createHashsizes(restoreText: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const line of restoreText.split('\n')) {
    const tokens = words(line);
    if (!CREATE.has(tokens[0]!) || tokens.length < 3) continue;
    const t = typeIndex(tokens);
    if (!isHashType(tokens[t])) continue;
    const at = tokens.indexOf('hashsize', t + 1);
    const value = at === -1 ? DEFAULT_HASHSIZE : Number(tokens[at + 1]);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`create line with an unreadable hashsize: ${line.slice(0, 200)}`);
    sizes.set(tokens[1]!, value);
  }
  return sizes;
}

/**
 * `saveText` (an `ipset save` text) with the create line of every hash set named in
 * `hashsizes` carrying that hashsize: an existing `hashsize N` gets the new value, a
 * create line without one gets `hashsize N` after its `family` (or after the type).
 * Every other line — `add` lines, comments, create lines of sets not in the map or of
 * list:sets — is returned byte for byte, line endings included.
 *
 * @throws Error for a create line whose `hashsize` has no value.
 */
export function withHashsizes(saveText: string, hashsizes: ReadonlyMap<string, number>): string {
  const lines = saveText.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const cr = line.endsWith('\r') ? '\r' : '';
    const tokens = words(cr === '' ? line : line.slice(0, -1));
    if (tokens[0] !== 'create' || tokens.length < 3) continue;
    const size = hashsizes.get(tokens[1]!);
    const t = typeIndex(tokens);
    if (size === undefined || !isHashType(tokens[t])) continue;
    const at = tokens.indexOf('hashsize', t + 1);
    if (at !== -1) {
      if (at + 1 >= tokens.length) throw new Error(`create line with hashsize but no value: ${line.slice(0, 200)}`);
      tokens[at + 1] = String(size);
    } else {
      const family = tokens.indexOf('family', t + 1);
      const after = family !== -1 && family + 1 < tokens.length ? family + 2 : t + 1;
      tokens.splice(after, 0, 'hashsize', String(size));
    }
    lines[n] = tokens.join(' ') + cr;
  }
  return lines.join('\n');
}

/** `restoreText` with the `hashsize N` of every create line removed (the kernel's default then applies). */
export function withoutHashsize(restoreText: string): string {
  return restoreText
    .split('\n')
    .map((line) => {
      const tokens = words(line);
      if (!CREATE.has(tokens[0]!)) return line;
      const at = tokens.indexOf('hashsize', 2);
      if (at === -1) return line;
      tokens.splice(at, 2);
      return tokens.join(' ');
    })
    .join('\n');
}

/** One text to restore and the label its samples go under. */
export interface RestoreSide {
  label: string;
  text: string;
}

/**
 * Restores each side `reps` times, each restore `ip netns exec NS ipset -exist restore`
 * in a fresh namespace, the sides' order rotating every repetition (A B, B A, …), and
 * records wall and CPU time of every restore. Each namespace is checked, untimed, to
 * hold `members` entries before it is deleted.
 */
export async function restoreSideBySide(
  sides: readonly RestoreSide[],
  reps: number,
  members: number,
  record: (label: string, ms: number, cpuMs?: number) => void,
): Promise<void> {
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(rep + k) % sides.length]!;
      collect();
      const ns = createNamespace();
      try {
        const run = expectOk(await ns.ipset(['-exist', 'restore'], { input: side.text }), `ipset -exist restore of ${side.label}`);
        record(side.label, run.ms, run.cpuMs);
        const headers = parseListHeaders(expectOk(await ns.ipset(['list', '-t'], { keepStdout: true }), 'ipset list -t').stdout);
        const held = headers.reduce((sum, h) => sum + h.entries, 0);
        if (held !== members) throw new Error(`${side.label}: the namespace holds ${held} entries, not ${members}`);
      } finally {
        ns.dispose();
      }
    }
  }
}

/** What K1 borrows from `run.ts`. */
export type KernelTextContext = Pick<CliBenchContext, 'reps' | 'real' | 'record' | 'med' | 'log'>;

/** The shape of the state K1 restores (for its row and method line). */
export interface KernelTextState {
  /** The project's restore text (`renderRestore(planApply(manager))`). */
  text: string;
  sets: number;
  perSet: number;
  /** Whether the bar is judged (only at the full size, as W1's). */
  judged: boolean;
  limit: number;
}

const OURS = 'K1 project restore text';
const SAVE = 'K1 ipset save text, equal hashsize';

/**
 * Measures K1 (when the real kernel is available; otherwise it logs why not and the
 * row's reference column says so) and returns the comparison `run.ts` makes its row
 * from, and K1's method line.
 */
export async function runKernelText(ctx: KernelTextContext, state: KernelTextState): Promise<{ comparison: CliComparison; method: string }> {
  const members = state.sets * state.perSet;
  const hashsizes = createHashsizes(state.text);
  const distinct = [...new Set(hashsizes.values())].sort((a, b) => a - b);
  const named = /(?:^|\n)-N [^\n]* hashsize /.test(state.text);
  const sizeNote = `hashsize ${distinct.join('/')}${named ? '' : " (the kernel's default; our text names none)"}`;
  let changed = 0;
  if (ctx.real.available) {
    const ns = createNamespace();
    let saveText: string;
    try {
      expectOk(await ns.ipset(['-exist', 'restore'], { input: state.text }), 'ipset -exist restore of the K1 text');
      saveText = expectOk(await ns.ipset(['save'], { keepStdout: true }), 'ipset save').stdout;
    } finally {
      ns.dispose();
    }
    const equal = withHashsizes(saveText, hashsizes);
    changed = countDiffering(saveText, equal);
    // The dry runs print only the table: the log line keeps every sample.
    const seen = new Map<string, string[]>();
    await restoreSideBySide(
      [
        { label: OURS, text: state.text },
        { label: SAVE, text: equal },
      ],
      ctx.reps,
      members,
      (label, ms, cpuMs) => {
        ctx.record(label, ms, cpuMs);
        seen.set(label, [...(seen.get(label) ?? []), `${ms.toFixed(0)}/${(cpuMs ?? Number.NaN).toFixed(0)}`]);
      },
    );
    ctx.log(
      `K1 (${formatCount(members)} members, ${sizeNote}, ${changed} save create lines rewritten): ` +
        `ours ${formatMs(ctx.med(OURS))}, save text ${formatMs(ctx.med(SAVE))} ` +
        `(wall/CPU ms, in run order: ours ${seen.get(OURS)!.join(' ')}; save ${seen.get(SAVE)!.join(' ')})`,
    );
  } else {
    ctx.log(`K1 skipped: ${ctx.real.reason ?? 'no kernel'}`);
  }
  const comparison: CliComparison = {
    workload: `K1 project restore text vs \`ipset save\` text, equal hashsize (${formatCount(state.sets)} sets × ${formatCount(state.perSet)}, ${sizeNote})`,
    ours: OURS,
    reference: SAVE,
    bar: `the kernel restores our text within 5% of the save text (≤ ${state.limit}), wall and CPU`,
    limit: state.judged ? state.limit : undefined,
  };
  const method =
    `K1: the W1 text (${formatCount(members)} members) is restored once in a namespace and \`ipset save\`d; the save text's create lines are given the hashsize the project's text creates each set with (${changed} of them differed); ` +
    'then, in every repetition, the project text and that save text are each restored with `ipset -exist restore` in a fresh namespace, the order alternating, and each namespace is checked to hold every member. Both sides are bare `ipset` runs: the ratio is the kernel\'s (and ipset\'s parser\'s) cost of our spelling against its own.';
  return { comparison, method };
}

/** How many lines differ between two texts of the same line count. */
function countDiffering(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n += 1;
  return n;
}
