/**
 * `faultyPort`: a fake port that arms a fault plan restore by restore, resolving each
 * fault's target against the text it is sent, and records what it armed and returned.
 */
import type { CommandResult, ErrorSide, IpsetPort } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import type { CrashSignal, FakePortOptions } from '@ipsets/fake-kernel';
import type { FaultTarget, PlannedFault, FaultPlan } from './fault-plans.js';
import { restoreLineOp, faultMessage } from './restore-lines.js';

/** A fault as it was armed on one restore. */
export interface ArmedFault {
  /** 0-based restore call. */
  call: number;
  kind: PlannedFault['kind'];
  /** Line faults: the 1-based line, its text, message and side. Crashes: lines applied before the crash. */
  line?: number;
  text?: string;
  message?: string;
  side?: ErrorSide;
  times?: number;
  signal?: CrashSignal;
}

/** A port over a fake kernel that arms a fault plan restore by restore and records what it did. */
export interface FaultyPort extends IpsetPort {
  /** Every restore text, in order. */
  readonly restores: string[];
  /** Every fault armed, in order. */
  readonly armed: ArmedFault[];
  /** Every restore result, in order. */
  readonly results: CommandResult[];
}

function candidates(lines: readonly string[], target: FaultTarget): number[] {
  const out: number[] = [];
  lines.forEach((line, i) => {
    const { op, set } = restoreLineOp(line);
    let ok: boolean;
    switch (target) {
      case 'any':
        ok = op !== 'other';
        break;
      case 'in-add-batch': {
        const prev = i > 0 ? restoreLineOp(lines[i - 1]!) : undefined;
        ok = op === 'add' && prev?.op === 'add' && prev.set === set;
        break;
      }
      default:
        ok = op === target;
    }
    if (ok) out.push(i + 1);
  });
  return out;
}

/**
 * A port over `kernel` (see `createFakePort`) that arms the faults of `plan` meant for
 * restore call k just before that call, resolving targets against the text, and disarms
 * whatever did not fire afterwards (faults never leak into a later call). A line fault
 * with no matching line in its call is not armed.
 */
export function faultyPort(kernel: FakeKernel, plan: FaultPlan, options: FakePortOptions = {}): FaultyPort {
  const inner = createFakePort(kernel, options);
  const restores: string[] = [];
  const armed: ArmedFault[] = [];
  const results: CommandResult[] = [];
  return {
    restores,
    armed,
    results,
    async restore(text, call) {
      const n = restores.length;
      restores.push(text);
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const f of plan.faults) {
        if (f.call !== n) continue;
        if (f.kind === 'busy') {
          kernel.busy(f.times);
          armed.push({ call: n, kind: 'busy', times: f.times });
        } else if (f.kind === 'crash') {
          const after = f.pick % (lines.length + 1);
          kernel.crashAfter(after, f.signal);
          armed.push({ call: n, kind: 'crash', line: after, signal: f.signal });
        } else {
          const c = candidates(lines, f.target);
          if (c.length === 0) continue;
          const line = c[f.pick % c.length]!;
          const text = lines[line - 1]!;
          const message = faultMessage(text, f.side, f.variant);
          kernel.failLine(line, { message, side: f.side });
          armed.push({ call: n, kind: 'fail-line', line, text, message, side: f.side });
        }
      }
      try {
        const result = await inner.restore(text, call);
        results.push(result);
        return result;
      } finally {
        kernel.clearFaults();
      }
    },
    save: (call) => inner.save(call),
    listNames: (call) => inner.listNames(call),
    listHeaders: (call) => inner.listHeaders(call),
  };
}
