/**
 * The restore session's own cost on a 1,000,000-line plan, next to rendering the
 * same plan: a clean run (one attempt), and a run whose first attempt fails in
 * userspace in the middle (the lost batch is resent, one line skipped).
 *
 *   node --expose-gc --import tsx bench/session.ts
 */
import { renderRestore } from '../src/session/render.js';
import { createRestoreSession } from '../src/session/session.js';
import type { CommandResult, PlanLine, RestorePlan } from '../src/types.js';

const N = Number(process.env.BENCH_LINES) || 1_000_000;
const SETS = 100;
const lines: PlanLine[] = [];
const onError = [{ when: 'any', then: 'skip-line', report: 'not-converged' }] as const;
for (let s = 0; s < SETS; s++) {
  const set = `azure-npm-${(1e19 + s * 7919).toString(36).slice(0, 20)}`;
  lines.push({ op: 'create', set, spec: 'nethash', section: `add/update-${s}`, onError: [...onError] });
  for (let i = 0; i < N / SETS; i++) {
    const v = s * (N / SETS) + i;
    lines.push({ op: 'add', set, member: `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`, section: `add/update-${s}`, onError: [...onError] });
  }
}
const plan: RestorePlan = { lines };
const OK: CommandResult = { exitCode: 0, stdout: '', stderr: '' };

function runSession(failAt?: number): number {
  const session = createRestoreSession(plan);
  let first = true;
  for (let a = session.next(); a !== undefined; a = session.next()) {
    if (first && failAt !== undefined) {
      first = false;
      session.record({ exitCode: 1, stdout: '', stderr: `ipset v7.17: Error in line ${failAt}: Syntax error: cannot parse x\n` });
    } else {
      session.record(OK);
    }
  }
  return session.report().linesApplied;
}

const gc = (globalThis as { gc?: () => void }).gc;
function measure(name: string, f: () => unknown): void {
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    gc?.();
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} median ${times[2]!.toFixed(0)} ms  min ${times[0]!.toFixed(0)} ms  (${lines.length} lines)`);
}

measure('renderRestore (reference)', () => renderRestore(plan));
measure('session, clean run', () => runSession());
measure('session, userspace error mid-plan', () => runSession(Math.floor(lines.length / 2)));
