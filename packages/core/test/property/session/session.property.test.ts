/**
 * The restore session against a small batch-aware kernel simulator: whatever the
 * failures and whoever catches them, the lines that effectively reached the kernel,
 * in the order they arrived, give the same state as the plan minus the lines the
 * report says were skipped. The simulator also has sets that fill up (`hash-full`
 * for every later add of a new member, as ipset 7.17 does): the session drops the
 * rest of such a set's adds, and one full set costs one run, never the others.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import { runRestoreSession } from '../../../src/session/session.js';
import type { ErrorHandler, IpsetPort, PlanLine, RestorePlan } from '../../../src/types.js';
import { MSG, killed, lineError, ok, fail } from '../../helpers/scripted-port.js';

const numRuns = Number(process.env.FC_NUM_RUNS) || 500;
const params = { numRuns };

// ---------------------------------------------------------------------------
// A kernel model at the level of restore text.

type State = Map<string, Set<string>>;

interface TextLine {
  op: 'create' | 'add' | 'del' | 'flush' | 'destroy';
  set: string;
  member?: string;
}

function parseLine(text: string): TextLine {
  const [flag, set, ...rest] = text.split(' ');
  const ops: Record<string, TextLine['op'] | undefined> = { '-N': 'create', '-A': 'add', '-D': 'del', '-F': 'flush', '-X': 'destroy' };
  const op = ops[flag ?? ''];
  if (op === undefined || set === undefined) throw new Error(`simulator: cannot parse ${JSON.stringify(text)}`);
  return op === 'add' || op === 'del' ? { op, set, member: rest.join(' ') } : { op, set };
}

/**
 * ipset 7.17 under `-exist`: create of an existing set, add of a present member, del
 * of an absent one and destroy of a missing set are no-ops. An add/del on a missing
 * set is an error (userspace, docs/ipset-semantics.md §3.1): `applyLine` reports it and changes nothing.
 */
function applyLine(state: State, line: TextLine): boolean {
  const members = state.get(line.set);
  switch (line.op) {
    case 'create':
      if (members === undefined) state.set(line.set, new Set());
      return true;
    case 'add':
      members?.add(line.member!);
      return members !== undefined;
    case 'del':
      members?.delete(line.member!);
      return members !== undefined;
    case 'flush':
      members?.clear();
      return true;
    case 'destroy':
      state.delete(line.set);
      return true;
  }
}

function snapshot(state: State): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of [...state.keys()].sort()) out[name] = [...state.get(name)!].sort();
  return out;
}

// ---------------------------------------------------------------------------
// Faults and the simulated port.

type Fault =
  | { type: 'none' }
  | { type: 'line'; at: number; side: 'kernel' | 'userspace' }
  | { type: 'busy-line'; at: number }
  | { type: 'busy'; at: number }
  | { type: 'crash'; at: number }
  /** Before this call, the `set`-th set (of SETS) becomes full at its current size, for good. */
  | { type: 'full'; set: number };

/** Start of the run of add/del lines with the command and set of line p-1 that ends at p-1. */
function runStart(lines: readonly TextLine[], p: number): number {
  if (p === 0) return 0;
  const last = lines[p - 1]!;
  if (last.op !== 'add' && last.op !== 'del') return p;
  let s = p - 1;
  while (s > 0 && lines[s - 1]!.op === last.op && lines[s - 1]!.set === last.set) s--;
  return s;
}

interface Sim {
  port: IpsetPort;
  state: State;
  calls: number;
  /**
   * Per call: how many leading lines of the attempt reached the model (`applied`) and
   * how many of them ipset's answer lets anyone know about (`known`: all before a
   * kernel error, those before the pending run for a userspace error, none when ipset
   * died without saying where).
   */
  log: { applied: number; known: number }[];
}

/** The first line that fails in the model: an add/del on a missing set (userspace), or an add of a new member to a full set (kernel). */
interface ModelFailure {
  at: number;
  kind: 'missing' | 'full';
}

/**
 * Walks `lines` over a copy of the model: the first add/del on a set that does not
 * exist at that point, or the first add of a member a full set does not hold
 * (`caps`: set → the most members it takes). `at` is `lines.length` when none fails.
 */
function firstModelFailure(state: State, caps: ReadonlyMap<string, number>, lines: readonly TextLine[]): ModelFailure {
  const copy: State = new Map([...state].map(([k, v]) => [k, new Set(v)]));
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k]!;
    const members = copy.get(l.set);
    if ((l.op === 'add' || l.op === 'del') && members === undefined) return { at: k, kind: 'missing' };
    if (l.op === 'add' && !members!.has(l.member!) && members!.size >= (caps.get(l.set) ?? Infinity)) return { at: k, kind: 'full' };
    applyLine(copy, l);
  }
  return { at: lines.length, kind: 'missing' };
}

/**
 * A port over the model. Each call takes the next scripted fault; a line that fails
 * in the model (add/del on a missing set) fails first if it comes earlier. `batchCap`
 * models ipset's 4096-byte split: a userspace error loses only the last
 * `batchCap`-line chunk of the pending run (undefined: the whole run, as when the run
 * fits in one message).
 */
function simulate(faults: readonly Fault[], batchCap?: number, initialCaps: ReadonlyMap<string, number> = new Map()): Sim {
  const state: State = new Map();
  const caps = new Map(initialCaps);
  const sim: Sim = { state, calls: 0, log: [], port: undefined as unknown as IpsetPort };
  const crashed = new Set<string>();
  const apply = (lines: readonly TextLine[], applied: number, known: number): void => {
    for (let k = 0; k < applied; k++) applyLine(state, lines[k]!);
    sim.log.push({ applied, known });
  };
  /** Userspace error at p: the pending run (or its last chunk) never reaches the kernel. */
  const userspace = (lines: readonly TextLine[], p: number): void => {
    const s = runStart(lines, p);
    const sent = batchCap === undefined || p === s ? s : s + (Math.ceil((p - s) / batchCap) - 1) * batchCap;
    apply(lines, sent, s);
  };
  sim.port = {
    async restore(text) {
      const lines = text.split('\n').filter((l) => l !== '').map(parseLine);
      let fault = faults[sim.calls++] ?? { type: 'none' };
      if (fault.type === 'full') {
        const set = SETS[fault.set % SETS.length]!;
        caps.set(set, Math.min(caps.get(set) ?? Infinity, state.get(set)?.size ?? 0));
        fault = { type: 'none' };
      }
      // The session gives up when the same input crashes twice; keep runs convergent.
      if (fault.type === 'crash' && crashed.has(text)) fault = { type: 'none' };
      const p = fault.type === 'none' ? lines.length : Math.min(lines.length - 1, Math.floor(fault.at * lines.length));
      const failure = firstModelFailure(state, caps, lines);
      const missing = failure.at;
      const modelError = (): ReturnType<typeof ok> => {
        if (failure.kind === 'full') {
          apply(lines, missing, missing);
          return lineError(missing + 1, MSG.hashFull);
        }
        userspace(lines, missing);
        return lineError(missing + 1, MSG.setMissing);
      };
      if (missing < p || (missing === p && fault.type !== 'none')) return modelError();
      if (fault.type === 'crash') crashed.add(text);
      switch (fault.type) {
        case 'none':
          if (missing < lines.length) return modelError();
          apply(lines, lines.length, lines.length);
          return ok();
        case 'line':
          if (fault.side === 'kernel') {
            apply(lines, p, p);
            return lineError(p + 1, MSG.hashFull);
          }
          userspace(lines, p);
          return lineError(p + 1, MSG.syntax);
        case 'busy-line':
          apply(lines, p, p);
          return lineError(p + 1, MSG.busy);
        case 'busy':
          // No line number: any prefix may have been applied.
          apply(lines, p, 0);
          return fail(`ipset v7.17: ${MSG.busy}`);
        case 'crash':
          apply(lines, p, 0);
          return killed(p % 2 === 0 ? 'SIGSEGV' : 'SIGKILL');
      }
    },
    save: async () => ok(),
    listNames: async () => ok(),
    listHeaders: async () => ok(),
  };
  return sim;
}

// ---------------------------------------------------------------------------
// Arbitraries.

const SETS = ['azure-npm-a', 'azure-npm-b', 'azure-npm-c'];
const MEMBERS = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.1.0/24'];

const SKIP_LINE: ErrorHandler[] = [{ when: 'any', then: 'skip-line', report: 'not-converged' }];
const SKIP_SECTION: ErrorHandler[] = [{ when: 'any', then: 'skip-section', report: 'not-converged' }];
const MIXED: ErrorHandler[] = [
  { when: 'hash-full', then: 'skip-section', report: 'not-converged' },
  { when: 'any', then: 'skip-line', report: 'not-converged' },
];

const runArb = (handlers: fc.Arbitrary<ErrorHandler[]>) =>
  fc.record({
    op: fc.constantFrom('add', 'add', 'add', 'del', 'del', 'flush', 'destroy', 'create'),
    set: fc.constantFrom(...SETS),
    members: fc.array(fc.constantFrom(...MEMBERS), { minLength: 1, maxLength: 7 }),
    section: fc.constantFrom('own', 'own', 's1', 's2'),
    handlers,
  });

const planArb = (handlers: fc.Arbitrary<ErrorHandler[]>): fc.Arbitrary<RestorePlan> =>
  fc.array(runArb(handlers), { maxLength: 10 }).map((runs) => {
    const lines: PlanLine[] = SETS.map((set) => ({
      op: 'create',
      set,
      spec: 'nethash',
      section: `add/update-${set}`,
      onError: SKIP_SECTION,
    }));
    for (const r of runs) {
      const section = r.section === 'own' ? `add/update-${r.set}` : r.section;
      if (r.op === 'add' || r.op === 'del') {
        for (const member of r.members) lines.push({ op: r.op, set: r.set, member, section, onError: r.handlers });
      } else if (r.op === 'create') {
        lines.push({ op: 'create', set: r.set, spec: 'nethash', section, onError: r.handlers });
      } else {
        lines.push({ op: r.op, set: r.set, section, onError: r.handlers });
      }
    }
    return { lines };
  });

const at = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Fault>({ type: 'none' }) },
  { weight: 6, arbitrary: fc.record({ type: fc.constant('line' as const), at, side: fc.constantFrom('kernel' as const, 'userspace' as const) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('busy-line' as const), at }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('busy' as const), at }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('crash' as const), at }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('full' as const), set: fc.nat(SETS.length - 1) }) },
);

// ---------------------------------------------------------------------------

function replay(plan: RestorePlan, include: (i: number) => boolean): Record<string, string[]> {
  const state: State = new Map();
  plan.lines.forEach((line, i) => {
    if (include(i)) applyLine(state, parseLine(renderLine(line)));
  });
  return snapshot(state);
}

async function checkRun(plan: RestorePlan, faults: readonly Fault[], batchCap?: number): Promise<void> {
  const sim = simulate(faults, batchCap);
  // Only runs without progress use the budget: at most one per scripted fault (a
  // failing line is always progress), and one more for the final clean run.
  const report = await runRestoreSession(plan, sim.port, { maxAttempts: faults.length + 1 });
  expect(report.fatal).toBeUndefined();
  expect(report.attempts).toHaveLength(sim.calls);
  for (const a of report.attempts) expect(a.lineIndices.length).toBeGreaterThan(0);
  const skipped = new Set(report.skipped.map((s) => s.index));
  expect(skipped.size).toBe(report.skipped.length);
  expect(report.linesApplied + report.skipped.length).toBe(plan.lines.length);
  expect(report.converged).toBe(report.skipped.every((s) => s.outcome !== 'not-converged'));

  // Lines that reached the kernel while ipset's answer did not say so (it died without
  // a line number, or an earlier chunk of a lost run had been sent) are resent; only if
  // such a line is skipped later can its earlier effect remain. Those are the only
  // lines whose fate the report cannot know.
  const unknown = new Set<number>();
  sim.log.forEach((entry, k) => {
    for (const i of report.attempts[k]!.lineIndices.slice(entry.known, entry.applied)) if (skipped.has(i)) unknown.add(i);
  });
  const actual = snapshot(sim.state);
  const maybe = [...unknown];
  // Enumerating 2^n candidate states stays cheap up to 12 such lines; rarer bigger cases are discarded.
  fc.pre(maybe.length <= 12);
  let matched = false;
  for (let mask = 0; mask < 1 << maybe.length && !matched; mask++) {
    const extra = new Set(maybe.filter((_, b) => mask & (1 << b)));
    matched = JSON.stringify(replay(plan, (i) => !skipped.has(i) || extra.has(i))) === JSON.stringify(actual);
  }
  if (!matched) {
    // Show the exact comparison (no unknown lines: the plan minus the skipped lines).
    expect(actual).toEqual(replay(plan, (i) => !skipped.has(i)));
  }
  expect(matched).toBe(true);
}

describe('restore session properties', () => {
  it('applied lines, replayed in arrival order, equal the plan minus the skipped lines and sections', async () => {
    await fc.assert(
      fc.asyncProperty(
        planArb(fc.constantFrom(SKIP_LINE, SKIP_SECTION, MIXED)),
        fc.array(faultArb, { maxLength: 6 }),
        (plan, faults) => checkRun(plan, faults),
      ),
      params,
    );
  });

  it('the same holds when ipset had already sent earlier parts of a long run (4096-byte split), with skip-line handlers', async () => {
    await fc.assert(
      fc.asyncProperty(
        planArb(fc.constant(SKIP_LINE)),
        fc.array(faultArb, { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (plan, faults, cap) => checkRun(plan, faults, cap),
      ),
      params,
    );
  });

  it('every attempt sends exactly renderRestore(plan, lineIndices), in plan order', async () => {
    await fc.assert(
      fc.asyncProperty(planArb(fc.constantFrom(SKIP_LINE, MIXED)), fc.array(faultArb, { maxLength: 6 }), async (plan, faults) => {
        const sim = simulate(faults);
        const texts: string[] = [];
        const port: IpsetPort = { ...sim.port, restore: (t, o) => (texts.push(t), sim.port.restore(t, o)) };
        const report = await runRestoreSession(plan, port, { maxAttempts: faults.length + 1 });
        expect(texts).toEqual(report.attempts.map((a) => renderRestore(plan, a.lineIndices)));
        for (const a of report.attempts) {
          for (let k = 1; k < a.lineIndices.length; k++) expect(a.lineIndices[k]!).toBeGreaterThan(a.lineIndices[k - 1]!);
        }
      }),
      params,
    );
  });

  it('k sets that are full from the start cost one run each: every other set converges in the same session, with the default budget', async () => {
    const addsOnly = fc
      .array(fc.record({ set: fc.constantFrom(...SETS), members: fc.array(fc.constantFrom(...MEMBERS), { minLength: 1, maxLength: 7 }) }), {
        maxLength: 10,
      })
      .map((runs): RestorePlan => {
        const lines: PlanLine[] = SETS.map((set) => ({ op: 'create', set, spec: 'nethash', section: `add/update-${set}`, onError: SKIP_SECTION }));
        for (const r of runs) for (const member of r.members) lines.push({ op: 'add', set: r.set, member, section: `add/update-${r.set}`, onError: SKIP_LINE });
        return { lines };
      });
    await fc.assert(
      fc.asyncProperty(addsOnly, fc.subarray(SETS), fc.nat(2), async (plan, fullSets, cap) => {
        const sim = simulate([], undefined, new Map(fullSets.map((s) => [s, cap])));
        const report = await runRestoreSession(plan, sim.port);
        expect(report.fatal).toBeUndefined();
        const failing = new Set(report.skipped.filter((s) => s.reason === 'failed').map((s) => s.set));
        // One failing line per full set, and one run per failing line plus the last.
        expect(report.skipped.filter((s) => s.reason === 'failed')).toHaveLength(failing.size);
        expect(report.attempts.length).toBeLessThanOrEqual(failing.size + 1);
        for (const set of failing) expect(fullSets).toContain(set);
        expect(new Set(report.failedSets)).toEqual(failing);
        // Every set that is not full holds exactly its planned members.
        for (const set of SETS.filter((s) => !fullSets.includes(s))) {
          const planned = new Set(plan.lines.filter((l) => l.op === 'add' && l.set === set).map((l) => l.member!));
          expect([...(sim.state.get(set) ?? [])].sort()).toEqual([...planned].sort());
        }
      }),
      params,
    );
  });
});
