/**
 * One bad set never blocks another, on the real kernel and on the fake: a plan for 103
 * sets of which 3 fail in ways that repeat for every later line of their set — a full
 * hash, a set that vanished after planning, a set recreated with another type — applies
 * the other 100 completely in one session and reports exactly the 3. Before per-set
 * skipping, the session skipped one line per `ipset restore` run and gave up after five,
 * leaving every set planned after the first full one unapplied.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyIpsetError, parseListHeaders, parseSave, planReconcile, reconcileIPSets, runRestoreSession } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { ownedState } from '../helpers/save.js';

const OWNER = 'azure-npm-';
const BAD = { full: 'azure-npm-badfull', vanished: 'azure-npm-badgone', retyped: 'azure-npm-badtype' };
const GOOD = Array.from({ length: 100 }, (_, i) => `azure-npm-good${i}`);
const MEMBERS = Array.from({ length: 20 }, (_, m) => `10.${m}.0.0/16`);

/** The 103 sets, the bad ones spread among the good ones. */
function desired(): DesiredState {
  const names = [...GOOD.slice(0, 30), BAD.full, ...GOOD.slice(30, 60), BAD.vanished, ...GOOD.slice(60), BAD.retyped];
  return { owner: OWNER, sets: names.map((name) => ({ name, spec: 'nethash', members: MEMBERS })) };
}

/** A kernel interface for the scenario: a port and a way to change the kernel behind the planner's back. */
interface Kernel {
  port: IpsetPort;
  restore(text: string): Promise<void>;
  save(): Promise<string>;
}

async function scenario(kernel: Kernel): Promise<ApplyReport> {
  // Every set exists, empty; the plan is made from this state.
  await kernel.restore(desired().sets.map((s) => `create ${s.name} hash:net`).join('\n') + '\n');
  const snapshot = parseSave((await kernel.port.save()).stdout);
  const headers = parseListHeaders((await kernel.port.listHeaders()).stdout);
  const plan = planReconcile(desired(), snapshot, headers);
  // Then, before the plan runs: one set can hold only 4 members, one is gone, one is of another type.
  await kernel.restore(
    [
      `destroy ${BAD.full}`,
      `create ${BAD.full} hash:net maxelem 4`,
      `destroy ${BAD.vanished}`,
      `destroy ${BAD.retyped}`,
      `create ${BAD.retyped} hash:ip,port`,
    ].join('\n') + '\n',
  );
  return runRestoreSession(plan, kernel.port);
}

function expectOnlyTheBadSetsFailed(report: ApplyReport, saveText: string): void {
  expect(report.fatal).toBeUndefined();
  expect(report.failedSets.sort()).toEqual(Object.values(BAD).sort());
  // One run per bad set (each fails once, the rest of its lines is dropped) and a last clean one at most.
  expect(report.attempts.length).toBeLessThanOrEqual(4);
  expect(report.skipped.filter((s) => s.reason === 'failed').map((s) => [s.set, s.kind])).toEqual([
    [BAD.full, 'hash-full'],
    [BAD.vanished, 'set-missing'],
    [BAD.retyped, 'syntax'],
  ]);
  const state = ownedState(saveText, OWNER);
  for (const name of GOOD) expect(state[name], name).toEqual({ type: 'hash:net', members: [...MEMBERS].sort() });
  expect(state[BAD.full]!.members).toHaveLength(4);
  expect(state[BAD.vanished]).toBeUndefined();
}

describe('one bad set never blocks another (fake kernel)', () => {
  it('3 permanently failing sets and 100 fine ones: the 100 converge in one session, the 3 are reported', async () => {
    const fake = new FakeKernel();
    const kernel: Kernel = {
      port: createFakePort(fake),
      restore: async (text) => {
        expect(fake.restore(text).exitCode).toBe(0);
      },
      save: async () => fake.save().stdout,
    };
    const report = await scenario(kernel);
    expectOnlyTheBadSetsFailed(report, await kernel.save());
  });
});

describeKernel('one bad set never blocks another (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h8-onebad');
  });
  afterAll(async () => {
    await ns?.dispose();
  });

  it('3 permanently failing sets and 100 fine ones: the 100 converge in one session, the 3 are reported', async () => {
    const kernel: Kernel = {
      port: createLinuxPort({ netns: ns.name }),
      restore: async (text) => {
        const result = await ns.run(['ipset', 'restore'], text);
        expect(result.stderr).toBe('');
      },
      save: async () => (await ns.run(['ipset', 'save'])).stdout,
    };
    const report = await scenario(kernel);
    expectOnlyTheBadSetsFailed(report, await kernel.save());
  });

});

describeKernel('which failures repeat for the rest of a set, measured (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h8-repeat');
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  });

  /** `ipset -exist restore` of `lines`: the classified error of the first failing line, or undefined. */
  async function firstError(...lines: string[]): Promise<{ line: number; kind: string; message: string } | undefined> {
    const result = await ns.run(['ipset', '-exist', 'restore'], lines.join('\n') + '\n');
    if (result.exitCode === 0) return undefined;
    const error = classifyIpsetError(result.stderr, { exitCode: result.exitCode });
    return { line: error.line ?? 0, kind: error.kind, message: error.message };
  }

  it('hash-full: every later add of a new member fails, a re-add of a held member does not, a delete makes room', async () => {
    expect(await firstError('create f hash:net maxelem 2', 'add f 10.0.0.1', 'add f 10.0.0.2', 'add f 10.0.0.3')).toMatchObject({ line: 4, kind: 'hash-full' });
    expect(await firstError('add f 10.0.0.4')).toMatchObject({ line: 1, kind: 'hash-full' });
    expect(await firstError('add f 10.0.0.1', 'add f 10.0.0.2')).toBeUndefined();
    expect(await firstError('del f 10.0.0.1', 'add f 10.0.0.5')).toBeUndefined();
  });

  it('a missing set fails every add and delete of it', async () => {
    expect(await firstError('add gone 10.0.0.1')).toMatchObject({ line: 1, kind: 'set-missing' });
    expect(await firstError('del gone 10.0.0.1')).toMatchObject({ line: 1, kind: 'set-missing' });
  });

  it('a set of another type fails every member of the planned grammar with a type-mismatch syntax error', async () => {
    expect(await firstError('create p hash:ip,port', 'add p 10.0.0.0/24')).toEqual({
      line: 2,
      kind: 'syntax',
      message: 'Syntax error: Second element is missing from 10.0.0.0/24.',
    });
    expect(await firstError('create n hash:net', 'add n 10.0.0.1,tcp:80')).toEqual({
      line: 2,
      kind: 'syntax',
      message: 'Syntax error: Elem separator in 10.0.0.1,tcp:80, but settype hash:net supports none.',
    });
  });

  it('does not repeat: a list whose member set is missing takes another member that exists', async () => {
    expect(await firstError('create l list:set', 'create a hash:net', 'add l nothere')).toMatchObject({ line: 3, kind: 'member-set-missing' });
    expect(await firstError('add l a')).toBeUndefined();
  });
});

/** 65,537 pods in one namespace next to a small set: grown with growth on, only that set reported with growth off. */
async function growthScenario(port: IpsetPort, saveText: () => Promise<string>, exactMaxelem: boolean): Promise<void> {
  const big = 'azure-npm-bignamespace';
  const small = 'azure-npm-smallnamespace';
  const pods = Array.from({ length: 65537 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const desired: DesiredState = {
    owner: OWNER,
    sets: [
      { name: big, spec: 'nethash', members: pods },
      { name: small, spec: 'nethash', members: ['192.168.0.1'] },
    ],
  };
  const off = await reconcileIPSets(desired, port, { growth: { enabled: false } });
  expect(off.fatal).toBeUndefined();
  let state = ownedState(await saveText(), OWNER);
  expect(state[small]!.members).toEqual(['192.168.0.1']);
  // Measured: ipset 7.17's kernel enforces maxelem inexactly while the hash resizes — a
  // restore of 65,537 adds into a maxelem-65536 set was refused at line 65,538 in 2 of
  // 4 runs and took all 65,537 in the others. Either way only that set can fail.
  if (exactMaxelem || off.failedSets.length > 0) {
    expect(off.failedSets).toEqual([big]);
    expect(off.skipped.map((s) => [s.set, s.kind])).toEqual([[big, 'hash-full']]);
    expect(state[big]!.members).toHaveLength(65536);
  } else {
    expect(state[big]!.members).toHaveLength(65537);
  }

  const on = await reconcileIPSets(desired, port);
  expect(on.converged).toBe(true);
  expect(on.notes.map((n) => n.message).join('\n')).toMatch(/grown to maxelem 131072/);
  state = ownedState(await saveText(), OWNER);
  expect(state[big]!.members).toHaveLength(65537);
  expect(await saveText()).toMatch(new RegExp(`create ${big} hash:net family inet hashsize \\d+ maxelem 131072 `));
}

describe('growth past maxelem (fake kernel)', () => {
  it('65,537 pods in one namespace: only that set is reported with growth off, converged (grown) with growth on', async () => {
    const fake = new FakeKernel();
    await growthScenario(createFakePort(fake), async () => fake.save().stdout, true);
  });
});

describeKernel('growth past maxelem (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h8-growth');
  });
  afterAll(async () => {
    await ns?.dispose();
  });

  it('65,537 pods in one namespace: only that set is reported with growth off, converged (grown) with growth on', async () => {
    await growthScenario(createLinuxPort({ netns: ns.name }), async () => (await ns.run(['ipset', 'save'])).stdout, false);
  }, 120_000);
});

