/**
 * Fault plans as data: line failures (userspace or kernel side, plausible messages),
 * busy batches and crashes after k lines, each meant for one restore call; `faultyPort`
 * arms them.
 */
import fc from 'fast-check';
import type { ErrorSide } from '@ipsets/core';
import type { CrashSignal } from '@ipsets/fake-kernel';
import { pick } from './pools.js';

/** Which lines of a restore a line fault may hit. */
export type FaultTarget = 'any' | 'add' | 'in-add-batch' | 'del' | 'create' | 'destroy';

/** One planned fault, armed before the `call`-th restore (0-based) through {@link faultyPort}. */
export type PlannedFault =
  | {
      kind: 'fail-line';
      call: number;
      target: FaultTarget;
      /** Chooses among the lines that match `target` (modulo their count). */
      pick: number;
      side: ErrorSide;
      /** Chooses among the messages that fit the line and side (see {@link faultMessage}). */
      variant: number;
    }
  | { kind: 'busy'; call: number; times: number }
  | { kind: 'crash'; call: number; /** Lines applied before the crash: `pick` modulo (lines + 1). */ pick: number; signal: CrashSignal };

/** Faults for the restores of one run, as data. */
export interface FaultPlan {
  faults: PlannedFault[];
}

/** Options of {@link faultPlanArb}. */
export interface FaultPlanOptions {
  /** Most faults (default 3). */
  maxFaults?: number;
  /** Faults go to restore calls 0..calls-1 (default 3). */
  calls?: number;
  /** Line-fault targets to choose from (default all). */
  targets?: readonly FaultTarget[];
  /** Sides of line faults (default both). */
  sides?: readonly ErrorSide[];
  /** Fault kinds (default all three). */
  kinds?: readonly PlannedFault['kind'][];
}

/** Fault plans: line failures (userspace or kernel side, plausible messages), busy batches, crashes after k lines. */
export function faultPlanArb(options: FaultPlanOptions = {}): fc.Arbitrary<FaultPlan> {
  const call = fc.nat({ max: (options.calls ?? 3) - 1 });
  const kinds = options.kinds ?? ['fail-line', 'busy', 'crash'];
  const arbs: fc.WeightedArbitrary<PlannedFault>[] = [];
  if (kinds.includes('fail-line')) {
    arbs.push({
      arbitrary: fc.record({
        kind: fc.constant('fail-line' as const),
        call,
        target: fc.constantFrom(...(options.targets ?? (['any', 'add', 'in-add-batch', 'del', 'create', 'destroy'] as const))),
        pick: fc.nat(),
        side: fc.constantFrom(...(options.sides ?? (['userspace', 'kernel'] as const))),
        variant: fc.nat(),
      }),
      weight: 6,
    });
  }
  if (kinds.includes('busy')) arbs.push({ arbitrary: fc.record({ kind: fc.constant('busy' as const), call, times: fc.integer({ min: 1, max: 2 }) }), weight: 1 });
  if (kinds.includes('crash')) {
    arbs.push({
      arbitrary: fc.record({ kind: fc.constant('crash' as const), call, pick: fc.nat(), signal: fc.constantFrom<CrashSignal>('SIGKILL', 'SIGSEGV') }),
      weight: 1,
    });
  }
  return fc.array(fc.oneof(...arbs), { maxLength: options.maxFaults ?? 3 }).map((faults) => ({ faults }));
}
