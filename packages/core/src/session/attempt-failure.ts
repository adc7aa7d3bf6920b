/**
 * What a failed `ipset restore` run of a session means, decided from its result alone
 * (session.ts acts on it): a crash, a busy kernel, a failure of one line and where the
 * run resumes, or an end the session cannot recover from.
 */
import { classifyIpsetError } from './classify.js';
import { quote } from '../errors.js';
import type { IpsetsErrorCode } from '../errors.js';
import type { ClassifiedError, CommandResult, PlanLine, RestorePlan } from '../types.js';

/** add/del lines are the ones ipset batches (docs/ipset-semantics.md §2.1). */
function isBatched(line: PlanLine): boolean {
  return line.op === 'add' || line.op === 'del';
}

function sameBatch(a: PlanLine, b: PlanLine): boolean {
  return a.op === b.op && a.set === b.set;
}

/**
 * Where the batch pending before position `p` of `indices` starts: the first
 * position of the run of add/del lines with the command and set of the line at
 * `p - 1` that ends at `p - 1`; `p` itself when the line before is not batched.
 *
 * ipset also cuts a run into 4096-byte messages (docs/ipset-semantics.md §2.4), so earlier parts of a long
 * run may have been sent. Which parts depends on byte sizes this pure code does not
 * model, so the whole run counts as pending: resending lines that did arrive is
 * harmless under `-exist`.
 */
export function pendingBatchStart(plan: RestorePlan, indices: readonly number[], p: number): number {
  if (p <= 0) return p;
  const last = plan.lines[indices[p - 1]!]!;
  if (!isBatched(last)) return p;
  let s = p - 1;
  while (s > 0 && sameBatch(plan.lines[indices[s - 1]!]!, last)) s--;
  return s;
}

/** A failed run, classified (see the module documentation). */
export type AttemptFailure =
  /** Killed by a signal, or ipset crashed: the kernel state is unknown. */
  | { readonly kind: 'crash'; readonly error: ClassifiedError }
  /** Busy, naming no line: the whole attempt is worth another run. */
  | { readonly kind: 'busy'; readonly error: ClassifiedError }
  /** Nothing to skip and nothing a rerun could fix: the session ends with `code`; `why` follows the run's description. */
  | { readonly kind: 'fatal'; readonly code: IpsetsErrorCode; readonly why: string; readonly error: ClassifiedError }
  /** Line `p + 1` of the attempt (plan line `index`) failed; the lines before `resumeAt` reached the kernel. */
  | {
      readonly kind: 'line';
      readonly p: number;
      readonly index: number;
      readonly line: PlanLine;
      /** Classified with the line's command, which decides the side of "does not exist" (docs/ipset-semantics.md §3.1). */
      readonly error: ClassifiedError;
      readonly resumeAt: number;
    };

/** What the failed run of the plan lines `indices` with `result` means. */
export function classifyFailure(plan: RestorePlan, indices: readonly number[], result: CommandResult): AttemptFailure {
  const base = classifyIpsetError(result.stderr, { exitCode: result.exitCode, signal: result.signal });
  if (result.signal !== undefined || base.kind === 'crash') return { kind: 'crash', error: base };

  // Line number and side come from the classifier only.
  if (base.line === undefined && base.lineText === undefined) {
    if (base.kind === 'busy') return { kind: 'busy', error: base };
    const unavailable = (result.exitCode === 126 || result.exitCode === 127) && !/ipset v\d/.test(result.stderr);
    return {
      kind: 'fatal',
      code: unavailable ? 'IPSET_UNAVAILABLE' : 'RESTORE_FAILED',
      why: unavailable
        ? 'the ipset binary could not be run.'
        : base.kind === 'parameter'
          ? 'ipset rejected its parameters, which retrying cannot fix.'
          : 'the error names no line, so there is nothing to skip and no point in running the same text again.',
      error: base,
    };
  }
  if (base.line === undefined) {
    return { kind: 'fatal', code: 'RESTORE_FAILED', why: `the line number ${quote(base.lineText)} is not a number, expected 1-${indices.length}.`, error: base };
  }
  const n = base.line;
  if (n < 1 || n > indices.length) {
    return { kind: 'fatal', code: 'RESTORE_FAILED', why: `line ${n} is outside the ${indices.length} line(s) sent, expected 1-${indices.length}.`, error: base };
  }

  const p = n - 1;
  const index = indices[p]!;
  const line = plan.lines[index]!;
  const error = classifyIpsetError(result.stderr, { exitCode: result.exitCode, signal: result.signal, op: line.op });
  const resumeAt = error.side === 'userspace' ? pendingBatchStart(plan, indices, p) : p;
  return { kind: 'line', p, index, line, error, resumeAt };
}

/** How a run ended, for messages: `ipset restore attempt N exited with C: "stderr"`. */
export function describeRun(attempt: number, result: CommandResult): string {
  const stderr = result.stderr.trim();
  const how = result.signal !== undefined ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`;
  return `ipset restore attempt ${attempt} ${how}${stderr === '' ? ' and printed nothing' : `: ${quote(stderr)}`}`;
}
