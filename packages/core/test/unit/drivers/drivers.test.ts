import { describe, expect, it } from 'vitest';
import { applyIPSets, applyIPSetsWithSave, reconcileIPSets, resetIPSets } from '../../../src/drivers/drivers.js';
import { IpsetsError, isIpsetsError } from '../../../src/errors.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { kernelName } from '../../../src/model/naming.js';
import { prefixedName } from '../../../src/model/set-types.js';
import type { DesiredState, SetMetadata } from '../../../src/types.js';
import { MSG, createScriptedPort, fail, lineError, ok } from '../../helpers/scripted-port.js';

const NS: SetMetadata = { name: 'default', type: 'namespace' };
const POD: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const nameOf = (m: SetMetadata): string => kernelName(prefixedName(m));

/** `ipset list -t` text for (name, references) pairs, in the layout of docs/ipset-semantics.md §5.2. */
function listT(sets: [name: string, references: number, type?: string][]): string {
  return (
    sets
      .map(
        ([name, references, type = 'hash:net']) =>
          `Name: ${name}\nType: ${type}\nRevision: 7\nHeader: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nSize in memory: 456\nReferences: ${references}\nNumber of entries: 0`,
      )
      .join('\n\n') + '\n'
  );
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('applyIPSets', () => {
  it('runs nothing when nothing is dirty and leaves the failure count alone', async () => {
    const m = new IPSetManager();
    const port = createScriptedPort({}, { strict: true });
    const report = await applyIPSets(m, port);
    expect(port.calls).toEqual([]);
    expect(report).toMatchObject({ converged: true, linesTotal: 0, attempts: [] });
  });

  it('applies the dirty delta in one restore, commits it, and resets the failure count', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    const port = createScriptedPort({ restore: [ok()] });
    const report = await applyIPSets(m, port);
    expect(port.restores).toEqual([`-N ${nameOf(NS)} --exist nethash\n-A ${nameOf(NS)} 10.0.0.1\n`]);
    expect(report.converged).toBe(true);
    expect(m.hasDirtyChanges).toBe(false);
    expect(m.consecutiveApplyFailures).toBe(0);
  });

  it('keeps a set whose line was skipped dirty and resends it next time (fixes docs/reference-behaviour.md §g.2.1 silent partial success)', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([POD], '10.0.0.2', 'pod-b');
    // Fail the add to POD (kernel side), let the rest through.
    const port = createScriptedPort({
      restore: [(text) => lineError(text.split('\n').indexOf(`-A ${nameOf(POD)} 10.0.0.2`) + 1, MSG.hashFull)],
    });
    const first = { report: await applyIPSets(m, port) };
    expect(first.report.converged).toBe(false);
    expect(first.report.failedSets).toEqual([nameOf(POD)]);
    expect(first.report.skipped).toEqual([expect.objectContaining({ set: nameOf(POD), kind: 'hash-full', outcome: 'not-converged' })]);
    expect(m.consecutiveApplyFailures).toBe(1);
    expect(m.hasDirtyChanges).toBe(true);

    const port2 = createScriptedPort({ restore: [ok()] });
    const second = await applyIPSets(m, port2);
    expect(port2.restores[0]).toContain(`-A ${nameOf(POD)} 10.0.0.2\n`);
    expect(port2.restores[0]).not.toContain(nameOf(NS));
    expect(second.converged).toBe(true);
    expect(m.consecutiveApplyFailures).toBe(0);
  });

  it('100 consecutive failed applies end in a typed MAX_CONSECUTIVE_FAILURES error, not a crash', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    const broken = createScriptedPort({
      restore: Array.from({ length: 100 }, () => fail("ipset v7.17: Unknown argument: `x'\nTry `ipset help' for more information.", 2)),
    });
    for (let i = 1; i < 100; i++) {
      const report = await applyIPSets(m, broken);
      expect(report.converged).toBe(false);
      expect(m.consecutiveApplyFailures).toBe(i);
    }
    const error = await rejection(applyIPSets(m, broken));
    expect(error).toBeInstanceOf(IpsetsError);
    expect(isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')).toBe(true);
    expect((error as IpsetsError).message).toContain('100');
    // One restore per apply: a fatal error is not retried with the same text.
    expect(broken.restores).toHaveLength(100);
    // The changes are still dirty: a later successful apply converges and resets the count.
    const healed = await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    expect(healed.converged).toBe(true);
    expect(m.consecutiveApplyFailures).toBe(0);
  });

  it('countFailures: false leaves the count to the caller (one failure policy: the agent\'s)', async () => {
    const m = new IPSetManager({ maxConsecutiveFailures: 2 });
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    for (let i = 0; i < 3; i++) {
      const broken = createScriptedPort({ restore: [fail("ipset v7.17: Unknown argument: `x'\nTry `ipset help' for more information.", 2)] });
      const report = await applyIPSets(m, broken, { countFailures: false });
      expect(report.converged).toBe(false);
    }
    expect(m.consecutiveApplyFailures).toBe(0);
  });

  it('a success resets the consecutive-failure count', async () => {
    const m = new IPSetManager({ maxConsecutiveFailures: 3 });
    const failing = (): ReturnType<typeof createScriptedPort> => createScriptedPort({ restore: [fail('ipset v7.17: Unknown argument: `x\'', 2)] });
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    await applyIPSets(m, failing());
    await applyIPSets(m, failing());
    expect(m.consecutiveApplyFailures).toBe(2);
    await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    expect(m.consecutiveApplyFailures).toBe(0);
    m.addToSets([NS], '10.0.0.2', 'pod-b');
    await applyIPSets(m, failing());
    await applyIPSets(m, failing());
    expect(m.consecutiveApplyFailures).toBe(2);
    expect(isIpsetsError(await rejection(applyIPSets(m, failing())), 'MAX_CONSECUTIVE_FAILURES')).toBe(true);
  });

  it('a destroy refused because the set is in use is reported, counts as converged, and stays dirty', async () => {
    const m = new IPSetManager();
    m.createIPSets([NS]);
    await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    m.deleteIPSet(prefixedName(NS));
    const port = createScriptedPort({ restore: [lineError(1, MSG.inUse)] });
    const report = await applyIPSets(m, port);
    // No -F first (issue 23): the refused destroy leaves the set intact, not empty under the rule.
    expect(port.restores[0]).toBe(`-X ${nameOf(NS)}\n`);
    expect(report.inUseSets).toEqual([nameOf(NS)]);
    expect(report.converged).toBe(true);
    expect(m.consecutiveApplyFailures).toBe(0);
    expect(m.hasDirtyChanges).toBe(true);
  });

  it('passes the abort signal to the port', async () => {
    const m = new IPSetManager();
    m.createIPSets([NS]);
    const controller = new AbortController();
    const port = createScriptedPort({ restore: [ok()] });
    await applyIPSets(m, port, { signal: controller.signal });
    expect(port.calls[0]!.options?.signal).toBe(controller.signal);
  });
});

describe('applyIPSetsWithSave', () => {
  it('reads ipset save, then diffs dirty sets against the kernel', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([NS], '10.0.0.2', 'pod-b');
    const ns = nameOf(NS);
    const port = createScriptedPort({
      save: [ok(`create ${ns} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd ${ns} 10.0.0.1\nadd ${ns} 10.9.9.9\n`)],
      restore: [ok()],
    });
    const report = await applyIPSetsWithSave(m, port);
    expect(port.calls.map((c) => c.method)).toEqual(['save', 'restore']);
    expect(port.restores[0]).toBe(`-N ${ns} --exist nethash\n-D ${ns} 10.9.9.9\n-A ${ns} 10.0.0.2\n`);
    expect(report.converged).toBe(true);
    expect(m.hasDirtyChanges).toBe(false);
  });

  it('fails with KERNEL_READ_FAILED when save fails, and applies nothing', async () => {
    const m = new IPSetManager();
    m.createIPSets([NS]);
    const port = createScriptedPort({ save: [fail('ipset v7.17: Kernel error received: Operation not permitted')] });
    const error = await rejection(applyIPSetsWithSave(m, port));
    expect(isIpsetsError(error, 'KERNEL_READ_FAILED')).toBe(true);
    expect((error as Error).message).toContain('Operation not permitted');
    expect(port.restores).toEqual([]);
    expect(m.hasDirtyChanges).toBe(true);
  });

  it('does not even read the kernel when nothing is dirty', async () => {
    const port = createScriptedPort({}, { strict: true });
    await applyIPSetsWithSave(new IPSetManager(), port);
    expect(port.calls).toEqual([]);
  });
});

describe('reconcileIPSets', () => {
  const A = 'azure-npm-aaa';
  const B = 'azure-npm-bbb';
  const desired: DesiredState = { owner: 'azure-npm-', sets: [{ name: A, spec: 'nethash', members: ['10.0.0.1'] }] };

  it('reads save and list -t, plans, and runs one restore; foreign sets are untouched', async () => {
    const port = createScriptedPort({
      save: [
        ok(
          `create ${B} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd ${B} 10.0.0.9\n` +
            'create kube-x hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd kube-x 1.1.1.1\n',
        ),
      ],
      listHeaders: [ok(listT([[B, 0], ['kube-x', 3]]))],
      restore: [ok()],
    });
    const report = await reconcileIPSets(desired, port);
    expect(port.calls.map((c) => c.method)).toEqual(['save', 'listHeaders', 'restore']);
    expect(port.restores[0]).toBe(`-N ${A} --exist nethash\n-A ${A} 10.0.0.1\n-X ${B}\n`);
    expect(port.restores[0]).not.toContain('kube-x');
    expect(report.converged).toBe(true);
  });

  it('reports a referenced undesired set as in use and leaves it alone', async () => {
    const port = createScriptedPort({
      save: [ok(`create ${B} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd ${B} 10.0.0.9\n`)],
      listHeaders: [ok(listT([[B, 1]]))],
      restore: [ok()],
    });
    const report = await reconcileIPSets(desired, port);
    expect(port.restores[0]).not.toContain(B);
    expect(report.inUseSets).toEqual([B]);
    expect(report.notes.map((n) => n.kind)).toEqual(['referenced-not-destroyed']);
  });

  it('a port that streams the save (pieces cut inside lines) plans exactly what the whole text plans', async () => {
    const text =
      `create ${B} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd ${B} 10.0.0.9\n` +
      `create ${A} hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd ${A} 10.0.0.1\nadd ${A} 10.0.0.0/24\n` +
      'create kube-x hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1\nadd kube-x 1.1.1.1';
    const whole = createScriptedPort({ save: [ok(text)], listHeaders: [ok(listT([[A, 0], [B, 0], ['kube-x', 3]]))], restore: [ok()] });
    await reconcileIPSets(desired, whole);
    const streamed = createScriptedPort({
      save: [
        (_text, options) => {
          for (let i = 0; i < text.length; i += 7) options!.stdout!(text.slice(i, i + 7));
          return { exitCode: 0, stdout: '', stderr: '', streamed: true };
        },
      ],
      listHeaders: [ok(listT([[A, 0], [B, 0], ['kube-x', 3]]))],
      restore: [ok()],
    });
    const report = await reconcileIPSets(desired, streamed);
    expect(streamed.restores).toEqual(whole.restores);
    expect(streamed.restores[0]).toBe(`-D ${A} 10.0.0.0/24\n-X ${B}\n`);
    expect(report.converged).toBe(true);
  });

  it('fails with KERNEL_READ_FAILED when list -t fails', async () => {
    const port = createScriptedPort({ save: [ok()], listHeaders: [fail('boom')] });
    expect(isIpsetsError(await rejection(reconcileIPSets(desired, port)), 'KERNEL_READ_FAILED')).toBe(true);
    expect(port.restores).toEqual([]);
  });
});

describe('the delta path notices a set destroyed behind its back', () => {
  it('the manager wanted {10.0.0.1, .2, .3}, the set was destroyed outside, then .3 was added: all three are sent, not only .3', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-1');
    m.addToSets([NS], '10.0.0.2', 'pod-2');
    await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    m.addToSets([NS], '10.0.0.3', 'pod-3');
    // list -n: the set is gone (someone ran ipset destroy).
    const port = createScriptedPort({ listNames: [ok('kube-x\n')], restore: [ok()] }, { strict: true });
    const report = await applyIPSets(m, port);
    expect(port.calls.map((c) => c.method)).toEqual(['listNames', 'restore']);
    expect(port.restores[0]).toBe(`-N ${nameOf(NS)} --exist nethash\n-A ${nameOf(NS)} 10.0.0.1\n-A ${nameOf(NS)} 10.0.0.2\n-A ${nameOf(NS)} 10.0.0.3\n`);
    expect(report.converged).toBe(true);
    expect(report.notes).toEqual([expect.objectContaining({ set: nameOf(NS), message: expect.stringContaining('missing from the kernel') })]);
    expect(m.hasDirtyChanges).toBe(false);
  });

  it('a set still in the kernel gets only its delta; pure creates and destroys read no list', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-1');
    const first = createScriptedPort({ restore: [ok()] }, { strict: true });
    await applyIPSets(m, first);
    expect(first.calls.map((c) => c.method)).toEqual(['restore']);
    m.addToSets([NS], '10.0.0.3', 'pod-3');
    const port = createScriptedPort({ listNames: [ok(`${nameOf(NS)}\n`)], restore: [ok()] }, { strict: true });
    await applyIPSets(m, port);
    expect(port.restores[0]).toBe(`-N ${nameOf(NS)} --exist nethash\n-A ${nameOf(NS)} 10.0.0.3\n`);
  });

  it('when list -n fails the delta is applied as before and a note says the check was not made', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-1');
    await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    m.addToSets([NS], '10.0.0.3', 'pod-3');
    const port = createScriptedPort({ listNames: [fail('boom')], restore: [ok()] }, { strict: true });
    const report = await applyIPSets(m, port);
    expect(port.restores[0]).toBe(`-N ${nameOf(NS)} --exist nethash\n-A ${nameOf(NS)} 10.0.0.3\n`);
    expect(report.notes).toEqual([expect.objectContaining({ message: expect.stringContaining('could not check') })]);
  });
});

describe('applyIPSetsWithSave reads the save only when something is to be added or updated (the reference does)', () => {
  it('only destroys pending: no ipset save', async () => {
    const m = new IPSetManager();
    m.createIPSets([NS]);
    await applyIPSets(m, createScriptedPort({ restore: [ok()] }));
    m.deleteIPSet(prefixedName(NS));
    const port = createScriptedPort({ restore: [ok()] }, { strict: true });
    const report = await applyIPSetsWithSave(m, port);
    expect(port.calls.map((c) => c.method)).toEqual(['restore']);
    expect(port.restores[0]).toBe(`-X ${nameOf(NS)}\n`);
    expect(report.converged).toBe(true);
  });

  it('an add pending: the save is read', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-1');
    const port = createScriptedPort({ save: [ok('')], restore: [ok()] }, { strict: true });
    await applyIPSetsWithSave(m, port);
    expect(port.calls.map((c) => c.method)).toEqual(['save', 'restore']);
  });
});

describe('resetIPSets (docs/reference-behaviour.md §f)', () => {
  const O1 = 'azure-npm-111';
  const O2 = 'azure-npm-222';
  const O3 = 'azure-npm-333';

  it('reads references first, destroys the unreferenced owned sets (never a flush), reports the leaked', async () => {
    const port = createScriptedPort(
      {
        listNames: [ok(`kube-proxy-x\n${O1}\nmy-azure-npm-thing\n${O2}\n${O3}\n`)],
        restore: [ok()],
        listHeaders: [ok(listT([['kube-proxy-x', 2], [O1, 0], ['my-azure-npm-thing', 0], [O2, 1], [O3, 0]]))],
      },
      { strict: true },
    );
    const report = await resetIPSets(port);
    // No owned list to destroy first: one read of the references is enough.
    expect(port.calls.map((c) => c.method)).toEqual(['listNames', 'listHeaders', 'restore']);
    // Prefix, not substring (fixes docs/reference-behaviour.md §g.2.12): my-azure-npm-thing and kube-proxy-x are never touched.
    expect(port.restores).toEqual([`-X ${O1}\n-X ${O3}\n`]);
    expect(report).toMatchObject({
      owner: 'azure-npm-',
      converged: true,
      found: [O1, O2, O3],
      destroyed: [O1, O3],
      leaked: [O2],
      vanished: [],
      failed: [],
      problems: [],
    });
    expect(report.destroy!.inUseSets).toEqual([O2]);
  });

  it('reset emptied sets that were still referenced: a referenced owned set is left intact (not flushed) and reported leaked, as reconcile does', async () => {
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${O2}\n`)],
      listHeaders: [ok(listT([[O1, 1], [O2, 0]])), ok(listT([[O1, 1], [O2, 0]]))],
    });
    const report = await resetIPSets(port);
    for (const text of port.restores) expect(text).not.toContain(O1);
    expect(report).toMatchObject({ leaked: [O1], destroyed: [O2], converged: true });
  });

  it('a set referenced only by an owned list is freed by destroying that list first (reset flushed both: issue 23), then destroyed', async () => {
    const list = 'azure-npm-list1';
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${list}\n`)],
      listHeaders: [ok(listT([[O1, 1], [list, 0, 'list:set']])), ok(listT([[O1, 0]]))],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([`-X ${list}\n`, `-X ${O1}\n`]);
    expect(report).toMatchObject({ leaked: [], destroyed: [O1, list], converged: true });
    expect(report.lists.plan.lines.map((l) => l.op)).toEqual(['destroy']);
  });

  it('a set held by an owned list that a rule references is left intact with its list (neither is flushed)', async () => {
    const list = 'azure-npm-list1';
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${list}\n`)],
      listHeaders: [ok(listT([[O1, 1], [list, 1, 'list:set']]))],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([]);
    expect(report).toMatchObject({ leaked: [O1, list], destroyed: [], converged: true });
  });

  it('the bare prefix and names with other characters after it are foreign to reset (a set named exactly azure-npm- was destroyed)', async () => {
    const foreign = ['azure-npm-', 'azure-npm-ABC', 'azure-npm-x.y', 'foo', 'fw-ref'];
    const port = createScriptedPort({ listNames: [ok(`${foreign.join('\n')}\n${O1}\n`)], listHeaders: [ok(listT([[O1, 0]]))] });
    const report = await resetIPSets(port);
    expect(report.found).toEqual([O1]);
    expect(port.restores).toEqual([`-X ${O1}\n`]);
    expect(isIpsetsError(await rejection(resetIPSets(createScriptedPort(), { owner: 'f' })), 'INVALID_ARGUMENT')).toBe(true);
  });

  it('with a manager, clears its cache, dirty state and failure count whatever the kernel outcome (the reference does)', async () => {
    const m = new IPSetManager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    const failing = createScriptedPort({ listNames: [fail('ipset v7.17: Kernel error received: Operation not permitted')] });
    expect(isIpsetsError(await rejection(resetIPSets(failing, { manager: m })), 'KERNEL_READ_FAILED')).toBe(true);
    expect(m.hasDirtyChanges).toBe(false);
    expect(m.getIPSet(prefixedName(NS))).toBeUndefined();

    const m2 = new IPSetManager();
    m2.addToSets([NS], '10.0.0.1', 'pod-a');
    const port = createScriptedPort({ listNames: [ok(`${O1}\n`)], listHeaders: [ok(listT([[O1, 0]]))], restore: [fail('ipset v7.17: Kernel error received: Operation not permitted')] });
    const report = await resetIPSets(port, { manager: m2 });
    expect(report.converged).toBe(false);
    expect(m2.hasDirtyChanges).toBe(false);
    expect(m2.consecutiveApplyFailures).toBe(0);
    // An invalid owner is refused before anything: the manager is left as it was.
    const m3 = new IPSetManager();
    m3.addToSets([NS], '10.0.0.1', 'pod-a');
    expect(isIpsetsError(await rejection(resetIPSets(createScriptedPort(), { manager: m3, owner: 'x' })), 'INVALID_ARGUMENT')).toBe(true);
    expect(m3.hasDirtyChanges).toBe(true);
  });

  it('never runs a flush, nor a destroy of every set (the reference fast path)', async () => {
    const port = createScriptedPort({ listNames: [ok(`${O1}\n`)], listHeaders: [ok(listT([[O1, 0]]))] });
    await resetIPSets(port);
    expect(port.restores).not.toEqual([]);
    for (const text of port.restores) for (const line of text.split('\n').filter(Boolean)) expect(line).toMatch(/^-X azure-npm-\S+$/);
  });

  it('does not burn tries on many leaked sets (issue #2997): they are excluded before the destroy', async () => {
    const names = Array.from({ length: 16 }, (_, i) => `azure-npm-leak${i}`);
    const port = createScriptedPort({
      listNames: [ok(names.join('\n') + `\n${O1}\n`)],
      listHeaders: [ok(listT([...names.map((n): [string, number] => [n, 1]), [O1, 0]]))],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([`-X ${O1}\n`]);
    expect(report.leaked).toEqual(names);
    expect(report.converged).toBe(true);
  });

  it('a destroy refused at run time (a reference appeared after list -t) is a leak, not a failure', async () => {
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${O2}\n`)],
      restore: [lineError(1, MSG.inUse), ok()],
      listHeaders: [ok(listT([[O1, 0], [O2, 0]]))],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([`-X ${O1}\n-X ${O2}\n`, `-X ${O2}\n`]);
    expect(report).toMatchObject({ leaked: [O1], destroyed: [O2], converged: true });
  });

  it('a set that vanished before its destroy is vanished; a failed destroy is a failure', async () => {
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${O2}\n${O3}\n`)],
      restore: [lineError(1, MSG.setMissing), lineError(1, 'Kernel error received: Operation not permitted'), ok()],
      listHeaders: [ok(listT([[O1, 0], [O2, 0], [O3, 0]]))],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([`-X ${O1}\n-X ${O2}\n-X ${O3}\n`, `-X ${O2}\n-X ${O3}\n`, `-X ${O3}\n`]);
    expect(report).toMatchObject({ vanished: [O1], failed: [O2], destroyed: [O3], converged: false });
  });

  it('fails with KERNEL_READ_FAILED when list -n fails, touching nothing (the reference read that as "no sets")', async () => {
    const port = createScriptedPort({ listNames: [fail('ipset v7.17: Kernel error received: Operation not permitted')] });
    expect(isIpsetsError(await rejection(resetIPSets(port)), 'KERNEL_READ_FAILED')).toBe(true);
    expect(port.restores).toEqual([]);
  });

  it('destroys without reference information when list -t fails, and says so', async () => {
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${O2}\n`)],
      listHeaders: [fail('boom'), fail('boom')],
      restore: [lineError(1, MSG.inUse), ok()],
    });
    const report = await resetIPSets(port);
    expect(port.restores).toEqual([`-X ${O1}\n-X ${O2}\n`, `-X ${O2}\n`]);
    expect(report.problems).toEqual([expect.stringContaining('reading references failed'), expect.stringContaining('reading references failed')]);
    expect(report).toMatchObject({ leaked: [O1], destroyed: [O2], converged: true });
  });

  it('stops after the lists session when it ends early, and reports every set not known gone', async () => {
    const list = 'azure-npm-list1';
    const port = createScriptedPort({
      listNames: [ok(`${O1}\n${list}\n`)],
      listHeaders: [ok(listT([[O1, 1], [list, 0, 'list:set']]))],
      restore: [fail("ipset v7.17: Unknown argument: `x'\nTry `ipset help' for more information.", 2)],
    });
    const report = await resetIPSets(port);
    expect(port.calls.map((c) => c.method)).toEqual(['listNames', 'listHeaders', 'restore']);
    expect(report).toMatchObject({ failed: [O1, list], destroyed: [], converged: false });
    expect(report.destroy).toBeUndefined();
  });

  it('uses a custom owner prefix and refuses an empty one', async () => {
    const port = createScriptedPort({ listNames: [ok('mine-1\nazure-npm-1\n')], listHeaders: [ok(listT([['mine-1', 0]]))] });
    const report = await resetIPSets(port, { owner: 'mine-' });
    expect(port.restores).toEqual(['-X mine-1\n']);
    expect(report.destroyed).toEqual(['mine-1']);
    expect(isIpsetsError(await rejection(resetIPSets(createScriptedPort(), { owner: '' })), 'INVALID_ARGUMENT')).toBe(true);
  });

  it('makes no restore call when there are no owned sets', async () => {
    const port = createScriptedPort({ listNames: [ok('kube-x\n')] }, { strict: true });
    const report = await resetIPSets(port);
    expect(port.calls.map((c) => c.method)).toEqual(['listNames']);
    expect(report).toMatchObject({ found: [], destroyed: [], converged: true });
  });

  it('passes the abort signal to every port call', async () => {
    const controller = new AbortController();
    const list = 'azure-npm-list1';
    const port = createScriptedPort({ listNames: [ok(`${O1}\n${list}\n`)], listHeaders: [ok(listT([[O1, 0], [list, 0, 'list:set']])), ok(listT([[O1, 0]]))] });
    await resetIPSets(port, { signal: controller.signal });
    expect(port.calls).toHaveLength(5);
    for (const c of port.calls) expect(c.options?.signal).toBe(controller.signal);
  });
});
