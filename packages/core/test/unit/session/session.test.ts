import { describe, expect, it } from 'vitest';
import { IpsetsError } from '../../../src/errors.js';
import { renderRestore } from '../../../src/session/render.js';
import { pushRebuildLines } from '../../../src/plan/rebuild.js';
import { createRestoreSession, pendingBatchStart, runRestoreSession } from '../../../src/session/session.js';
import type { PlanLine, RestorePlan } from '../../../src/types.js';
import { add, addToList, create, del, destroy, flush, planOf } from '../../helpers/plan-builders.js';
import { MSG, createScriptedPort, fail, killed, lineError, ok } from '../../helpers/scripted-port.js';

/** Plan indices of the lines of a restore text, by matching rendered lines in order. */
function indicesOf(plan: RestorePlan, text: string): number[] {
  const rendered = plan.lines.map((_, i) => renderRestore(plan, [i]));
  const out: number[] = [];
  let from = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const i = rendered.indexOf(line, from);
    if (i < 0) throw new Error(`line ${JSON.stringify(line)} is not a plan line after ${from}`);
    out.push(i);
    from = i + 1;
  }
  return out;
}

/**
 * The reference's resume rule (docs/reference-behaviour.md §e.3): omit every line up to and
 * including the failing line N, whoever caught the error. Test-only, to show what
 * it loses.
 */
function seedStyleResume(attempt: readonly number[], n: number): number[] {
  return attempt.slice(n);
}

/** A kernel error that belongs to one line only (the kernel ran out of memory for it). */
const NOMEM = 'Kernel error received: Cannot allocate memory';

const A = 'azure-npm-aaaa';
const B = 'azure-npm-bbbb';
const L = 'azure-npm-list';

describe('restore session: success and shape', () => {
  it('runs the whole plan as attempt 1 and converges on exit 0', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'));
    const port = createScriptedPort({ restore: [ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toEqual([renderRestore(plan)]);
    expect(port.restores[0]).toBe(`-N ${A} --exist nethash\n-A ${A} 10.0.0.1\n-A ${A} 10.0.0.2\n`);
    expect(report).toMatchObject({
      converged: true,
      linesTotal: 3,
      linesApplied: 3,
      skipped: [],
      failedSets: [],
      inUseSets: [],
      notes: [],
    });
    expect(report.fatal).toBeUndefined();
    expect(report.attempts).toEqual([{ attempt: 1, lineIndices: [0, 1, 2], exitCode: 0, action: 'done' }]);
    expect(report.plan).toBe(plan);
  });

  it('makes no port call for an empty plan and reports converged', async () => {
    const port = createScriptedPort({}, { strict: true });
    const report = await runRestoreSession({ lines: [] }, port);
    expect(port.calls).toEqual([]);
    expect(report).toMatchObject({ converged: true, linesTotal: 0, linesApplied: 0, attempts: [] });
  });

  it('returns the same attempt from next() until record(), numbers attempts from 1', () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'));
    const s = createRestoreSession(plan);
    const a1 = s.next()!;
    expect(s.next()).toBe(a1);
    expect(a1).toEqual({ number: 1, text: renderRestore(plan), indices: [0, 1] });
    s.record(ok());
    expect(s.next()).toBeUndefined();
    expect(() => s.record(ok())).toThrow(IpsetsError);
  });

  it('refuses a maxAttempts that is not a positive integer', () => {
    expect(() => createRestoreSession(planOf(create(A)), { maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => createRestoreSession(planOf(create(A)), { maxAttempts: 1.5 })).toThrow(/maxAttempts/);
  });

  it('carries plan notes, puts type-conflict-referenced sets in failedSets and referenced-not-destroyed in inUseSets', async () => {
    const plan: RestorePlan = {
      lines: [create(A)],
      notes: [
        { set: B, kind: 'type-conflict-referenced', message: 'x' },
        { set: L, kind: 'referenced-not-destroyed', message: 'y' },
      ],
    };
    const report = await runRestoreSession(plan, createScriptedPort());
    expect(report.notes).toEqual(plan.notes);
    expect(report.failedSets).toEqual([B]);
    expect(report.inUseSets).toEqual([L]);
    expect(report.converged).toBe(false);
  });
});

describe('restore session: the reference handler rules (docs/reference-behaviour.md §e.1), kernel-caught errors', () => {
  it('-N already exists: skips the whole section, resumes after N, reports the set not converged', async () => {
    const plan = planOf(create(A), create(B), add(A, '10.0.0.1'), add(B, '10.0.0.2'), add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(2, MSG.setExists), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2, 4]);
    expect(report.skipped).toEqual([
      expect.objectContaining({ index: 1, set: B, reason: 'failed', kind: 'set-exists', outcome: 'not-converged' }),
      expect.objectContaining({ index: 3, set: B, reason: 'section-aborted', kind: 'set-exists', outcome: 'not-converged' }),
    ]);
    expect(report.skipped[0]!.text).toBe(`-N ${B} --exist nethash`);
    expect(report.skipped[0]!.message).toContain('already exists');
    expect(report.attempts.map((a) => a.action)).toEqual(['skip-section', 'done']);
    expect(report.attempts[0]!.error).toMatchObject({ kind: 'set-exists', side: 'kernel', line: 2 });
    expect(report.failedSets).toEqual([B]);
    expect(report.converged).toBe(false);
    expect(report.linesApplied).toBe(3);
  });

  it('-A to a list whose member is missing: skips that line only', async () => {
    const plan = planOf(create(L, 'setlist'), addToList(L, A), addToList(L, B));
    const port = createScriptedPort({ restore: [lineError(2, MSG.memberMissing), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2]);
    expect(report.skipped).toEqual([expect.objectContaining({ index: 1, kind: 'member-set-missing', outcome: 'not-converged' })]);
    expect(report.attempts[0]!.action).toBe('skip-line');
    expect(report.failedSets).toEqual([L]);
  });

  it('-A to a hash set, any kernel error: skips that line, keeps the lines before it', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'), add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(3, NOMEM), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([3]);
    expect(report.skipped.map((s) => [s.index, s.kind])).toEqual([[2, 'unknown']]);
    expect(report.linesApplied).toBe(3);
  });

  it('-D, any error: skips that line', async () => {
    const plan = planOf(create(A), del(A, '10.0.0.1'), del(A, '10.0.0.2'), add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(2, "Element cannot be deleted from the set: it's not added"), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2, 3]);
    expect(report.skipped.map((s) => s.index)).toEqual([1]);
  });

  it('-F of a missing set (caught by the kernel): skips the flush and its destroy, ignorable, converged', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), flush(B), flush(L), destroy(B), destroy(L));
    const port = createScriptedPort({ restore: [lineError(3, MSG.setMissing), ok()] });
    const report = await runRestoreSession(plan, port);
    // flush is not batched: the lines before it were sent, nothing is resent.
    expect(indicesOf(plan, port.restores[1]!)).toEqual([3, 5]);
    expect(report.attempts[0]!.error).toMatchObject({ kind: 'set-missing', side: 'kernel' });
    expect(report.skipped.map((s) => [s.index, s.reason, s.outcome])).toEqual([
      [2, 'failed', 'ignorable'],
      [4, 'section-aborted', 'ignorable'],
    ]);
    expect(report.converged).toBe(true);
    expect(report.failedSets).toEqual([]);
  });

  it('-N, any other error: skips the whole section too', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), create(B), add(B, '10.0.0.2'));
    const port = createScriptedPort({ restore: [lineError(1, 'Kernel error received: Cannot allocate memory'), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2, 3]);
    expect(report.skipped.map((s) => [s.index, s.reason, s.kind])).toEqual([
      [0, 'failed', 'unknown'],
      [1, 'section-aborted', 'unknown'],
    ]);
    expect(report.failedSets).toEqual([A]);
  });

  it('-F, any other error: skips the flush and its destroy, not converged', async () => {
    const plan = planOf(flush(A), flush(B), destroy(A), destroy(B));
    const port = createScriptedPort({ restore: [lineError(1, 'Kernel error received: Operation not permitted'), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([1, 3]);
    expect(report.skipped.map((s) => [s.index, s.outcome])).toEqual([
      [0, 'not-converged'],
      [2, 'not-converged'],
    ]);
    expect(report.converged).toBe(false);
  });

  it('-X of a set in use: skips that line, reports the set in use, still converged', async () => {
    const plan = planOf(flush(A), flush(B), destroy(A), destroy(B));
    const port = createScriptedPort({ restore: [lineError(3, MSG.inUse), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([3]);
    expect(report.inUseSets).toEqual([A]);
    expect(report.skipped).toEqual([expect.objectContaining({ index: 2, kind: 'set-in-use', outcome: 'in-use' })]);
    expect(report.converged).toBe(true);
  });

  it('handles one failed line per attempt across several attempts', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'), add(A, '10.0.0.3'), add(A, '10.0.0.4'));
    const port = createScriptedPort({ restore: [lineError(2, NOMEM), lineError(2, NOMEM), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores.map((t) => indicesOf(plan, t))).toEqual([
      [0, 1, 2, 3, 4],
      [2, 3, 4],
      [4],
    ]);
    expect(report.skipped.map((s) => s.index)).toEqual([1, 3]);
    expect(report.linesApplied).toBe(3);
  });
});

describe('restore session: ends instead of wasting tries', () => {
  it('stops after maxAttempts runs without progress (the retry limit) and reports what was not applied', async () => {
    const plan = planOf(...Array.from({ length: 10 }, (_, i) => add(A, `10.0.0.${i + 1}`)));
    const port = createScriptedPort({ restore: Array.from({ length: 10 }, () => lineError(1, MSG.busy)) });
    const report = await runRestoreSession(plan, port, { maxAttempts: 5 });
    expect(port.restores).toHaveLength(5);
    expect(report.fatal).toMatchObject({ code: 'RESTORE_FAILED' });
    expect(report.fatal!.message).toMatch(/5 attempt\(s\) without progress/);
    expect(report.attempts.map((a) => a.action)).toEqual(['retry-line', 'retry-line', 'retry-line', 'retry-line', 'abort']);
    expect(report.converged).toBe(false);
    expect(report.failedSets).toEqual([A]);
    expect(report.linesApplied).toBe(0);
  });

  it('handled errors do not use the budget: 12 lines failing one per run with maxAttempts 2 still end, every other line applied', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => [create(`${A}${i}`), add(`${A}${i}`, '10.0.0.1')]).flat();
    const plan = planOf(...lines);
    // Each set's create fails once (one run each): the reference's budget of runs would give up after 2.
    const port = createScriptedPort({ restore: [...Array.from({ length: 12 }, () => lineError(1, NOMEM)), ok()] });
    const report = await runRestoreSession(plan, port, { maxAttempts: 2 });
    expect(port.restores).toHaveLength(12);
    expect(report.fatal).toBeUndefined();
    expect(report.failedSets).toHaveLength(12);
  });

  it('a run without progress between progressing ones counts, and the count is not reset by progress', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), create(B), add(B, '10.0.0.2'));
    const port = createScriptedPort({ restore: [fail(`ipset v7.17: ${MSG.busy}`), lineError(1, NOMEM), fail(`ipset v7.17: ${MSG.busy}`)] });
    const report = await runRestoreSession(plan, port, { maxAttempts: 2 });
    expect(port.restores).toHaveLength(3);
    expect(report.attempts.map((a) => a.action)).toEqual(['retry', 'skip-section', 'abort']);
    expect(report.fatal!.message).toMatch(/2 attempt\(s\) without progress/);
  });

  it('does not count the budget as exhausted when the last attempt leaves nothing to run', async () => {
    const plan = planOf(add(A, '10.0.0.1'), add(B, '10.0.0.2'));
    const port = createScriptedPort({ restore: [lineError(1, NOMEM), lineError(1, NOMEM)] });
    const report = await runRestoreSession(plan, port, { maxAttempts: 2 });
    expect(port.restores).toHaveLength(2);
    expect(report.fatal).toBeUndefined();
    expect(report.skipped.map((s) => s.index)).toEqual([0, 1]);
  });

  it('ends with a clear error on an unparsable line number', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'));
    const port = createScriptedPort({ restore: [fail('ipset v7.17: Error in line x1: Hash is full, cannot add more elements')] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toHaveLength(1);
    expect(report.fatal).toMatchObject({ code: 'RESTORE_FAILED' });
    expect(report.fatal!.message).toContain('"x1" is not a number');
    expect(report.attempts[0]!.action).toBe('abort');
    expect(report.failedSets).toEqual([A]);
  });

  it.each([
    [0, 'line 0 is outside the 2 line(s) sent'],
    [3, 'line 3 is outside the 2 line(s) sent'],
    [99, 'line 99 is outside'],
  ])('ends with a clear error on out-of-range line number %i', async (n, text) => {
    const plan = planOf(create(A), add(A, '10.0.0.1'));
    const port = createScriptedPort({ restore: [lineError(n, MSG.hashFull)] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toHaveLength(1);
    expect(report.fatal!.message).toContain(text);
    expect(report.linesApplied).toBe(0);
  });

  it('ends when no handler matches instead of re-running the same text (docs/reference-behaviour.md §e.4: the reference wastes its tries)', async () => {
    const bare: PlanLine = { op: 'add', set: A, member: '10.0.0.2', section: 's', onError: [] };
    const plan = planOf(create(A), add(A, '10.0.0.1'), bare, add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(3, MSG.hashFull), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toHaveLength(1);
    expect(report.fatal!.message).toContain('has no handler for "hash-full"');
    // Kernel-caught: the two lines before it are applied and known.
    expect(report.linesApplied).toBe(2);
  });

  it('matches handlers in order, first match wins', async () => {
    const line: PlanLine = {
      op: 'destroy',
      set: A,
      section: 'x',
      onError: [
        { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
        { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
        { when: 'any', then: 'skip-line', report: 'not-converged' },
      ],
    };
    const report = await runRestoreSession(planOf(line), createScriptedPort({ restore: [lineError(1, MSG.inUse)] }));
    expect(report.skipped[0]!.outcome).toBe('in-use');
  });

  it('fixes docs/reference-behaviour.md §g.2.3: a parameter problem without a line number ends the session after one run', async () => {
    const plan = planOf(create(A), del(A, '10.0.0.1'));
    const port = createScriptedPort({
      restore: [fail("ipset v7.17: Unknown argument: `nomatch'\nTry `ipset help' for more information.", 2)],
    });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toHaveLength(1);
    expect(report.fatal).toMatchObject({ code: 'RESTORE_FAILED', error: { kind: 'parameter' } });
    expect(report.attempts[0]!.action).toBe('abort');
  });

  it('ends on an error without a line number that is not transient (port errors)', async () => {
    const plan = planOf(create(A));
    const port = createScriptedPort({
      restore: [
        fail(
          "ipset v7.17: Syntax error: '70000' is out of range 0-65535\nSyntax error: 'tcp' is invalid as number\ncannot parse '70000' as a tcp port",
        ),
      ],
    });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toHaveLength(1);
    expect(report.fatal!.code).toBe('RESTORE_FAILED');
  });

  it('ends with IPSET_UNAVAILABLE when the binary cannot be run (exit 127)', async () => {
    const port = createScriptedPort({ restore: [fail('sh: 1: ipset: not found', 127)] });
    const report = await runRestoreSession(planOf(create(A)), port);
    expect(report.fatal!.code).toBe('IPSET_UNAVAILABLE');
  });

  it('ends with the code of an IpsetsError the port rejects with; other rejections propagate', async () => {
    const unavailable = new IpsetsError('IPSET_UNAVAILABLE', 'spawn ipset ENOENT');
    const report = await runRestoreSession(planOf(create(A)), createScriptedPort({ restore: [unavailable] }));
    expect(report.fatal).toMatchObject({ code: 'IPSET_UNAVAILABLE' });
    expect(report.fatal!.message).toContain('spawn ipset ENOENT');
    expect(report.attempts).toEqual([{ attempt: 1, lineIndices: [0], exitCode: -1, action: 'abort' }]);
    await expect(runRestoreSession(planOf(create(A)), createScriptedPort({ restore: [new TypeError('bug')] }))).rejects.toThrow(
      TypeError,
    );
  });

  it('does not start an attempt once the signal is aborted, and passes the signal to the port', async () => {
    const controller = new AbortController();
    controller.abort();
    const port = createScriptedPort();
    const report = await runRestoreSession(planOf(create(A)), port, { signal: controller.signal });
    expect(port.calls).toEqual([]);
    expect(report.fatal!.code).toBe('ABORTED');

    const live = new AbortController();
    const port2 = createScriptedPort();
    await runRestoreSession(planOf(create(A)), port2, { signal: live.signal });
    expect(port2.calls[0]!.options?.signal).toBe(live.signal);
  });
});

describe('restore session: transient errors', () => {
  it('retries the same lines on busy without a line number', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'));
    const port = createScriptedPort({ restore: [fail(`ipset v7.17: ${MSG.busy}`), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toEqual([renderRestore(plan), renderRestore(plan)]);
    expect(report.attempts.map((a) => a.action)).toEqual(['retry', 'done']);
    expect(report.converged).toBe(true);
  });

  it('retries line N itself on busy at line N (kernel): lines before it are kept', async () => {
    const plan = planOf(create(A), create(B), flush(L), destroy(L));
    const port = createScriptedPort({ restore: [lineError(3, MSG.busy), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2, 3]);
    expect(report.attempts[0]!.action).toBe('retry-line');
    expect(report.skipped).toEqual([]);
    expect(report.converged).toBe(true);
  });

  it('resends everything not known applied after a crash, and ends when the same input crashes twice', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'));
    const port = createScriptedPort({ restore: [killed('SIGKILL'), killed('SIGKILL')] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores).toEqual([renderRestore(plan), renderRestore(plan)]);
    expect(report.attempts.map((a) => a.action)).toEqual(['retry', 'abort']);
    expect(report.attempts[0]!.signal).toBe('SIGKILL');
    expect(report.fatal!.message).toContain('crashed ipset twice');
    expect(report.linesApplied).toBe(0);
  });

  it('a crash after other progress retries and can converge', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'));
    const port = createScriptedPort({ restore: [lineError(2, NOMEM), killed('SIGSEGV'), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores.map((t) => indicesOf(plan, t))).toEqual([[0, 1, 2], [2], [2]]);
    expect(report.fatal).toBeUndefined();
  });
});

describe('restore session: userspace errors lose the pending batch (docs/ipset-semantics.md §0.1, §2)', () => {
  // create A, five adds to A, then an add to a set that does not exist.
  const lostBatchPlan = planOf(
    create(A),
    add(A, '10.0.0.1'),
    add(A, '10.0.0.2'),
    add(A, '10.0.0.3'),
    add(A, '10.0.0.4'),
    add(A, '10.0.0.5'),
    add(B, '10.9.9.9'),
    add(A, '10.0.0.6'),
  );

  it('fixes the reference lost-batch defect: every add of the run before a userspace error reaches the port again', async () => {
    const port = createScriptedPort({ restore: [lineError(7, MSG.setMissing), ok()] });
    const report = await runRestoreSession(lostBatchPlan, port);
    const first = indicesOf(lostBatchPlan, port.restores[0]!);
    const second = indicesOf(lostBatchPlan, port.restores[1]!);
    // ipset never sent adds 1-5 (one pending batch); all of them are sent again.
    expect(second).toEqual([1, 2, 3, 4, 5, 7]);
    for (const m of ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5']) {
      expect(port.restores[1]).toContain(`-A ${A} ${m}\n`);
    }
    // The reference's "resume after N" would have dropped all five.
    const seed = seedStyleResume(first, 7);
    expect(seed).toEqual([7]);
    expect(seed.filter((i) => i >= 1 && i <= 5)).toEqual([]);

    expect(report.attempts[0]).toMatchObject({ action: 'resume-batch', error: { kind: 'set-missing', side: 'userspace', line: 7 } });
    expect(report.skipped.map((s) => s.index)).toEqual([6]);
    // Only the create was known applied after attempt 1; everything else after attempt 2.
    expect(report.linesApplied).toBe(7);
    expect(report.failedSets).toEqual([B]);
  });

  it('a syntax error inside a run resends the run before it, skips the bad line, and continues', async () => {
    const plan = planOf(create(A), add(A, '10.0.0.1'), add(A, '10.0.0.2'), add(A, '10.0.0.3'), add(A, '10.0.0.4'));
    const port = createScriptedPort({ restore: [lineError(4, MSG.syntax), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([1, 2, 4]);
    expect(report.attempts[0]!.error).toMatchObject({ kind: 'syntax', side: 'userspace' });
  });

  it('only the run with the command and set of line N-1 is pending: earlier runs and other commands were sent', async () => {
    const plan = planOf(
      create(A),
      add(A, '10.0.0.1'),
      del(A, '10.0.0.2'),
      add(B, '10.0.0.3'),
      add(B, '10.0.0.4'),
      add(L, '10.0.0.5'),
    );
    const port = createScriptedPort({ restore: [lineError(6, MSG.setMissing), ok()] });
    await runRestoreSession(plan, port);
    // The add-to-A and del-from-A batches were flushed by the next run; B's run was pending.
    expect(indicesOf(plan, port.restores[1]!)).toEqual([3, 4]);
  });

  it('with no batched line before N nothing is resent', async () => {
    const plan = planOf(create(A), create(B), add(L, '10.0.0.1'), add(A, '10.0.0.2'));
    const port = createScriptedPort({ restore: [lineError(3, MSG.setMissing), ok()] });
    await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([3]);
  });

  it('a section abort also drops the lost lines of that section, which are not applied', async () => {
    // Line 3 (an add to B that belongs to A's section) fails in userspace: line 2, the
    // start of the same add-to-B run, is lost with it; the create of A was sent.
    const plan = planOf(create(A), add(B, '10.0.0.1'), add(B, '10.0.0.2', `add/update-${A}`), add(A, '10.0.0.3'));
    const bad: PlanLine = { ...plan.lines[2]!, onError: [{ when: 'any', then: 'skip-section', report: 'not-converged' }] };
    const plan2 = planOf(plan.lines[0]!, plan.lines[1]!, bad, plan.lines[3]!);
    const port = createScriptedPort({ restore: [lineError(3, MSG.syntax), ok()] });
    const report = await runRestoreSession(plan2, port);
    // Section add/update-A = lines 0 (applied: create is never pending), 2 (failed), 3 (aborted).
    expect(indicesOf(plan2, port.restores[1]!)).toEqual([1]);
    expect(report.skipped.map((s) => [s.index, s.reason])).toEqual([
      [2, 'failed'],
      [3, 'section-aborted'],
    ]);
    expect(report.linesApplied).toBe(2);
  });

  it('"does not exist" on -D is userspace too (the set lookup parses the element)', async () => {
    const plan = planOf(del(A, '10.0.0.1'), del(A, '10.0.0.2'), del(B, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(3, MSG.setMissing), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([0, 1]);
    expect(report.attempts[0]!.error!.side).toBe('userspace');
  });

  it('pendingBatchStart finds the start of the same-command same-set run before N', () => {
    const plan = lostBatchPlan;
    const all = plan.lines.map((_, i) => i);
    expect(pendingBatchStart(plan, all, 6)).toBe(1);
    expect(pendingBatchStart(plan, all, 3)).toBe(1);
    expect(pendingBatchStart(plan, all, 1)).toBe(1);
    expect(pendingBatchStart(plan, all, 0)).toBe(0);
    expect(pendingBatchStart(plan, all, 7)).toBe(6);
  });
});

describe('restore session: one bad set never blocks another (failures that repeat for the rest of a set)', () => {
  // Messages as ipset 7.17 prints them, measured in a network namespace with
  // `printf '…' | ipset -exist restore` (see src/set-failures.ts).
  const SEPARATOR = 'Syntax error: Elem separator in 10.0.0.1,tcp:80, but settype hash:net supports none.';
  const SECOND = 'Syntax error: Second element is missing from 10.0.0.0/24.';

  it('hash-full on an add drops the later adds of that set from the same attempt; other sets go on', async () => {
    const plan = planOf(create(A), create(B), add(A, '10.0.0.1'), add(A, '10.0.0.2'), add(A, '10.0.0.3'), add(B, '10.0.1.1'), add(A, '10.0.0.4'));
    const port = createScriptedPort({ restore: [lineError(3, MSG.hashFull), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([5]);
    expect(report.skipped.map((s) => [s.index, s.reason, s.kind])).toEqual([
      [2, 'failed', 'hash-full'],
      [3, 'same-set', 'hash-full'],
      [4, 'same-set', 'hash-full'],
      [6, 'same-set', 'hash-full'],
    ]);
    expect(report.failedSets).toEqual([A]);
    expect(report.attempts).toHaveLength(2);
  });

  it('hash-full stops dropping at a later delete of the set: the delete frees room (measured), so later adds may succeed', async () => {
    const plan = planOf(add(A, '10.0.0.1'), add(A, '10.0.0.2'), del(A, '10.0.0.9'), add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(1, MSG.hashFull), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2, 3]);
    expect(report.skipped.map((s) => s.index)).toEqual([0, 1]);
  });

  it('a set missing on add (userspace) drops its later adds and deletes, up to a create of it', async () => {
    const plan = planOf(add(A, '10.0.0.1'), add(B, '10.0.1.1'), del(A, '10.0.0.2'), add(A, '10.0.0.3'), create(A), add(A, '10.0.0.4'));
    const port = createScriptedPort({ restore: [lineError(1, MSG.setMissing), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([1, 4, 5]);
    expect(report.skipped.map((s) => [s.index, s.reason])).toEqual([
      [0, 'failed'],
      [2, 'same-set'],
      [3, 'same-set'],
    ]);
  });

  it.each([
    ['a named-port member sent to a hash:net', SEPARATOR],
    ['a network sent to a hash:ip,port', SECOND],
  ])('a type mismatch (%s) drops the later adds and deletes of that set', async (_, message) => {
    const plan = planOf(add(A, '10.0.0.1'), add(A, '10.0.0.2'), add(B, '10.0.1.1'), del(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(1, message), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([2]);
    expect(report.skipped.map((s) => [s.index, s.reason, s.kind])).toEqual([
      [0, 'failed', 'syntax'],
      [1, 'same-set', 'syntax'],
      [3, 'same-set', 'syntax'],
    ]);
  });

  it('a syntax error of one member, or a missing member set of a list, drops only that line (they do not repeat)', async () => {
    const plan = planOf(add(A, '10.0.0.1'), add(A, '10.0.0.2'), addToList(L, 'azure-npm-x'), addToList(L, 'azure-npm-y'));
    const port = createScriptedPort({ restore: [lineError(1, MSG.syntax), lineError(2, MSG.memberMissing), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores.map((t) => indicesOf(plan, t))).toEqual([
      [0, 1, 2, 3],
      [1, 2, 3],
      [3],
    ]);
    expect(report.skipped.map((s) => s.index)).toEqual([0, 2]);
  });

  it('a later line with no handler for the error is left to run and fail on its own', async () => {
    const noHandler: PlanLine = { ...add(A, '10.0.0.2'), onError: [{ when: 'syntax', then: 'skip-line', report: 'not-converged' }] };
    const plan = planOf(add(A, '10.0.0.1'), noHandler, add(A, '10.0.0.3'));
    const port = createScriptedPort({ restore: [lineError(1, MSG.hashFull), lineError(1, MSG.hashFull)] });
    const report = await runRestoreSession(plan, port);
    expect(indicesOf(plan, port.restores[1]!)).toEqual([1]);
    expect(report.fatal!.message).toMatch(/no handler for "hash-full"/);
  });

  it('3 sets that fail permanently and 100 that are fine: the 100 converge in one session of 3 runs (the last bad set ends the plan), the 3 are reported', async () => {
    const bad = ['azure-npm-bad1', 'azure-npm-bad2', 'azure-npm-bad3'];
    const good = Array.from({ length: 100 }, (_, i) => `azure-npm-good${i}`);
    const lines: PlanLine[] = [];
    for (const s of [...good.slice(0, 40), bad[0]!, ...good.slice(40, 70), bad[1]!, ...good.slice(70), bad[2]!]) {
      lines.push(create(s));
      for (let m = 1; m <= 20; m++) lines.push(add(s, `10.0.${m}.1`));
    }
    const plan = planOf(...lines);
    // Each bad set is full after its 5th member.
    const port = createScriptedPort({
      restore: Array.from({ length: 4 }, () => (text: string) => {
        const rows = text.split('\n');
        const k = rows.findIndex((r) => bad.some((b) => r.startsWith(`-A ${b} 10.0.6.1`)));
        return k < 0 ? ok() : lineError(k + 1, MSG.hashFull);
      }),
    });
    const report = await runRestoreSession(plan, port);
    expect(report.fatal).toBeUndefined();
    expect(port.restores).toHaveLength(3);
    expect(report.failedSets).toEqual(bad);
    expect(report.linesApplied).toBe(100 * 21 + 3 * 6);
    expect(report.skipped).toHaveLength(3 * 15);
  });
});

describe('restore session: a crash during a rebuild', () => {
  it('restarts the rebuild from its "-X temporary" when the crashed attempt held its swap (resending only the adds and the swap swapped the old contents back into the live set after a swap the crash had let through)', async () => {
    const lines: PlanLine[] = [];
    pushRebuildLines((l) => lines.push(l), { name: A, spec: 'nethash', capacity: {}, section: `add-or-update ${A}` }, B, ['10.0.0.1', '10.0.0.2']);
    const plan = planOf(...lines);
    // -X B, -N B applied, then busy at the first add; the resent adds, swap and cleanup crash.
    const port = createScriptedPort({ restore: [lineError(3, MSG.busy), killed('SIGKILL'), ok()] });
    const report = await runRestoreSession(plan, port);
    expect(port.restores.map((t) => indicesOf(plan, t))).toEqual([
      [0, 1, 2, 3, 4, 5],
      [2, 3, 4, 5],
      [0, 1, 2, 3, 4, 5],
    ]);
    expect(report.converged).toBe(true);
  });
});
