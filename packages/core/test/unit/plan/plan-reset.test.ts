import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { RESET_DESTROY_HANDLERS } from '../../../src/plan/handlers.js';
import { planResetDestroy } from '../../../src/plan/plan-reset.js';
import { renderRestore } from '../../../src/session/render.js';

const OWNER = 'azure-npm-';

describe('planResetDestroy: owned names only', () => {
  it('fixes docs/reference-behaviour.md §g.2.12: refuses a name that only contains the owner prefix (the reference grep matched substrings)', () => {
    let error: unknown;
    try {
      planResetDestroy(['azure-npm-1', 'my-azure-npm-set'], [], OWNER);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('"my-azure-npm-set"');
  });

  it('refuses an empty owner (it would own every set)', () => {
    expect(() => planResetDestroy(['x'], [], '')).toThrow(/owner prefix/);
  });

  it('gives an empty plan for no names, and never a flush (a reset destroys lists first instead: issue 23)', () => {
    expect(planResetDestroy([], [], OWNER)).toEqual({ lines: [] });
    expect(planResetDestroy(['azure-npm-1', 'azure-npm-2'], [], OWNER).lines.map((l) => l.op)).toEqual(['destroy', 'destroy']);
  });
});

describe('planResetDestroy', () => {
  it('destroys every name but the leaked ones, with the reference reset -X handlers', () => {
    const plan = planResetDestroy(['azure-npm-1', 'azure-npm-2', 'azure-npm-3'], ['azure-npm-2']);
    expect(renderRestore(plan)).toBe('-X azure-npm-1\n-X azure-npm-3\n');
    // docs/reference-behaviour.md §e.1 reset -X: in-use → continue (a failure: here, in use); doesn't-exist → continue; any → failure.
    expect(plan.lines[0]!.onError).toEqual([
      { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
      { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
      { when: 'any', then: 'skip-line', report: 'not-converged' },
    ]);
    expect(plan.lines[1]!.onError).toBe(RESET_DESTROY_HANDLERS);
    expect(plan.notes).toEqual([expect.objectContaining({ set: 'azure-npm-2', kind: 'referenced-not-destroyed' })]);
  });

  it('has no notes when nothing leaked', () => {
    expect(planResetDestroy(['azure-npm-1'])).toEqual({
      lines: [{ op: 'destroy', set: 'azure-npm-1', section: 'delete-azure-npm-1', onError: RESET_DESTROY_HANDLERS }],
    });
  });
});
