/**
 * What really reached the kernel after an apply that ended early. When a stop's grace
 * ran out, a `--timeout` killed the restore, or the restore was killed by a signal,
 * the session counts only the lines it saw acknowledged: none of the killed restore's
 * (ipset prints nothing until it ends). Yet ipset had applied part of its input.
 * So the kernel is read again, through the open kernel (not the stopped port), and
 * compared with the desired state as `ipsets diff` would: that is the report's truth.
 */
import { planReconcile } from '@ipsets/core';
import type { ApplyReport, DesiredState, IpsetPort } from '@ipsets/core';
import { formatCount } from '../format.js';
import { diffFromPlan } from '../output/diff.js';
import { readKernel } from './read-kernel.js';

/** The kernel read after an apply that ended early, set by set. */
export interface KernelCheck {
  /** Where the answer comes from: the kernel, read again after the session ended. */
  readonly source: 'kernel read after the apply ended early';
  /** Why the session ended early (`ABORTED`, `TIMEOUT`, the restore's signal). */
  readonly endedBy: string;
  /** How many sets the session counted as failed (`report.failedSets`). */
  readonly counted: number;
  /** Kernel names the report counted as failed that the kernel now holds as desired. */
  readonly converged: readonly string[];
  /** Kernel names that still differ from the desired state. */
  readonly notConverged: readonly string[];
  /** Kernel names whose state is unknown: the kernel could not be read again (`readError`). */
  readonly uncertain: readonly string[];
  readonly readError?: string;
}

/** Why `report`'s session ended before the kernel answered for every line, or undefined when it did not. */
export function endedEarlyBy(report: ApplyReport): string | undefined {
  if (report.converged) return undefined;
  const code = report.fatal?.code as string | undefined;
  if (code === 'ABORTED' || code === 'TIMEOUT') return code;
  const killed = [...report.attempts].reverse().find((a) => a.signal !== undefined);
  return killed === undefined ? undefined : `the restore was killed by ${killed.signal}`;
}

/**
 * Reads the kernel through `port` and says, for each set of `report.failedSets` (and any
 * other set that differs now), whether it converged after all. Never throws: a kernel
 * that cannot be read leaves every failed set uncertain.
 */
export async function checkKernelAfterEarlyEnd(desired: DesiredState, port: IpsetPort, report: ApplyReport, endedBy: string): Promise<KernelCheck> {
  const source = 'kernel read after the apply ended early' as const;
  try {
    const { snapshot, headers } = await readKernel(port);
    const differing = new Set(diffFromPlan(planReconcile(desired, snapshot, headers), snapshot, desired).map((d) => d.set));
    const converged = report.failedSets.filter((name) => !differing.has(name));
    return { source, endedBy, counted: report.failedSets.length, converged, notConverged: [...differing], uncertain: [] };
  } catch (error) {
    const readError = error instanceof Error ? error.message : String(error);
    return { source, endedBy, counted: report.failedSets.length, converged: [], notConverged: [], uncertain: [...report.failedSets], readError };
  }
}

/** `… the kernel was read again …: 563 of the 1,000 set(s) counted as not converged above reached their desired state after all; 437 set(s) still differ: …`. */
export function formatKernelCheck(check: KernelCheck, labels: ReadonlyMap<string, string> = new Map(), shown = 20): string {
  const named = (name: string) => (labels.has(name) ? `${labels.get(name)!} (${name})` : name);
  const list = (names: readonly string[]) =>
    names.length === 0 ? '' : `: ${names.slice(0, shown).map(named).join(', ')}${names.length > shown ? `, … and ${formatCount(names.length - shown)} more` : ''}`;
  if (check.readError !== undefined) {
    return `the apply ended early (${check.endedBy}) and the kernel could not be read again (${check.readError}): ${formatCount(check.uncertain.length)} set(s) are uncertain${list(check.uncertain)}; run apply again\n`;
  }
  return (
    `the apply ended early (${check.endedBy}); the kernel was read again and is the truth of this report: ` +
    `${formatCount(check.converged.length)} of the ${formatCount(check.counted)} set(s) counted as not converged above reached their desired state after all; ` +
    (check.notConverged.length === 0
      ? 'the kernel equals the desired state\n'
      : `${formatCount(check.notConverged.length)} set(s) still differ${list(check.notConverged)}; run apply again\n`)
  );
}
