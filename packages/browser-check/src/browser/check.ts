/**
 * The browser check, run inside a page: a small state planned by core, applied to the
 * fake kernel with planted faults, step by step through the restore session and then
 * through the apply driver, and the outcome published as `window.__ipsetsCheck` for
 * the test to read. Nothing here may need Node: the bundle step refuses it.
 */
import { IPSetManager, applyIPSets, createRestoreSession, planApply, renderRestore } from '@ipsets/core';
import type { SetMetadata } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { convergenceProblems } from '@ipsets/fake-kernel/invariants';

/** What the page publishes. */
export interface BrowserCheckResult {
  readonly userAgent: string;
  /** `typeof process` in the page: a real browser has none. */
  readonly processType: string;
  readonly planText: string;
  /** The planted userspace fault: its line and the batch it should make the session resend. */
  readonly planted: { readonly line: number; readonly text: string };
  readonly sessionAttempts: readonly { readonly action: string; readonly lines: number; readonly kind?: string; readonly side?: string; readonly errorLine?: number }[];
  readonly sessionConverged: boolean;
  readonly linesApplied: number;
  readonly commitApplied: number;
  /** Second part: the apply driver with a kernel-side fault, then a retry. */
  readonly driverFirst: { readonly converged: boolean; readonly failedSets: readonly string[]; readonly attempts: number };
  readonly driverSecond: { readonly converged: boolean; readonly attempts: number };
  readonly problems: readonly string[];
  readonly save: string;
}

declare global {
  interface Window {
    __ipsetsCheck?: BrowserCheckResult | { error: string };
  }
}

const shop: SetMetadata = { type: 'namespace', name: 'shop' };
const web: SetMetadata = { type: 'keyValueLabelOfPod', name: 'app:web' };

async function run(): Promise<BrowserCheckResult> {
  const manager = new IPSetManager();
  for (let i = 10; i < 14; i++) manager.addToSets([shop, web], `10.244.1.${i}`, `shop/web-${i}`);
  manager.addToSets([{ type: 'namedPorts', name: 'http' }], '10.244.1.10,tcp:8080', 'shop/web-10');
  manager.addToLists([{ type: 'keyValueLabelOfNamespace', name: 'team:retail' }], [shop]);
  manager.addToSets([{ type: 'cidrBlocks', name: 'allow-egress' }], '10.96.0.0/12 nomatch', 'policy/egress');

  const kernel = new FakeKernel();
  const plan = planApply(manager);
  const planText = renderRestore(plan);
  const lines = planText.split('\n');
  // The third add to the namespace set: ipset rejects it in userspace, so the two adds
  // before it in the same batch never reach the kernel and must be resent.
  const shopSet = manager.getIPSet('ns-shop')!.kernelName;
  const adds = lines.map((l, i) => (l.startsWith(`-A ${shopSet} `) ? i + 1 : 0)).filter((n) => n > 0);
  const line = adds[2]!;
  kernel.failLine(line, { message: 'Syntax error: cannot parse 10.244.1.129: resolving to IPv4 address failed', side: 'userspace' });

  const session = createRestoreSession(plan);
  for (let attempt = session.next(); attempt !== undefined; attempt = session.next()) {
    session.record(kernel.restore(attempt.text, { exist: true }));
  }
  const report = session.report();
  const commit = manager.commit(report);

  // The driver path: a kernel-side failure on a create, then a clean retry.
  manager.addToSets([{ type: 'keyValueLabelOfPod', name: 'app:api' }], '10.244.2.20', 'shop/api-0');
  const port = createFakePort(kernel);
  kernel.failNextMatching(/^-N /, { message: 'Kernel error received: Cannot allocate memory', side: 'kernel' });
  const first = await applyIPSets(manager, port);
  const second = await applyIPSets(manager, port);

  return {
    userAgent: navigator.userAgent,
    processType: typeof (globalThis as { process?: unknown }).process,
    planText,
    planted: { line, text: lines[line - 1]! },
    sessionAttempts: report.attempts.map((a) => ({
      action: a.action,
      lines: a.lineIndices.length,
      ...(a.error === undefined ? {} : { kind: a.error.kind, side: a.error.side, ...(a.error.line === undefined ? {} : { errorLine: a.error.line }) }),
    })),
    sessionConverged: report.converged,
    linesApplied: report.linesApplied,
    commitApplied: commit.applied.length,
    driverFirst: { converged: first.converged, failedSets: first.failedSets, attempts: first.attempts.length },
    driverSecond: { converged: second.converged, attempts: second.attempts.length },
    problems: convergenceProblems(kernel, manager.desiredState()).map((p) => `${p.set}: ${p.problem}`),
    save: kernel.saveText(),
  };
}

run().then(
  (result) => {
    window.__ipsetsCheck = result;
    document.getElementById('result')!.textContent = JSON.stringify(result, null, 2);
  },
  (error: unknown) => {
    window.__ipsetsCheck = { error: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error) };
  },
);
