/**
 * `ipsets demo`: a node's life on the embedded fake kernel, told as it happens.
 *
 * 1. A dual-stack cluster: namespaces with labels, pods with an IPv4 and an IPv6
 *    address, labels and named ports, network policies with CIDR blocks and except
 *    blocks (nomatch) in both families, and a foreign set that another component owns.
 * 2. The first apply (the whole state), then pod churn applied as small deltas.
 * 3. Fault (a): a policy is deleted while an iptables rule still references its
 *    CIDR set: the destroy is refused and reported in use; once the rule is gone the
 *    next apply destroys it.
 * 4. Fault (b): a scale-up's restore fails in userspace in the middle of a batch:
 *    ipset never sent the pending batch, so the session resumes at the batch start
 *    (the reference resumed after the failing line and lost the batch).
 * 5. The final check: the kernel's owned sets equal the desired state, and the
 *    foreign set is byte-identical.
 */
import { IPSetManager, applyIPSets, familyOfSpec, kernelTypeOfSpec, parseListHeaders, planApply, prefixedName, renderRestore } from '@ipsets/core';
import type { ApplyReport, DesiredState, SetMetadata } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/fake-kernel';
import { EXIT, stdoutStyle } from '../cli-io.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import type { CliIo } from '../cli-io.js';
import { Cluster, NAMESPACES, POLICIES, prng } from '../demo/cluster.js';
import type { Pod } from '../demo/cluster.js';
import { compareWithDesired, entries } from '../demo/compare.js';
import { recording } from '../demo/recording-port.js';
import { formatBytes, formatCount, formatDuration } from '../format.js';
import { formatApplyReport } from '../output/apply-report.js';
import { labelsOf } from '../output/labels.js';
import { formatPlanCounts, headRestore } from '../output/plan-text.js';
import { createStyle } from '../style.js';
import type { Style } from '../style.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Pods in the cluster at the start (default 600). */
  pods?: number;
  /** Seed of the scenario's random choices (default 7). */
  seed?: number;
  /** Lines of each restore text to show (default 6). */
  lines?: number;
  style?: Style;
  /** Where the story is printed. */
  write?: (text: string) => void;
  /** Milliseconds for timings (default performance.now). */
  now?: () => number;
}

/** What the demo found. */
export interface DemoResult {
  /** True when the final check passed (and every step behaved as told). */
  ok: boolean;
  /** One line per check, `✔`/`✘` first. */
  checks: string[];
  /** The kernel at the end (for tests). */
  kernel: FakeKernel;
  desired: DesiredState;
  durationMs: number;
}

/**
 * Runs the demo scenario and prints it. Deterministic for a seed (timings aside).
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const s = options.style ?? createStyle(false);
  const write = options.write ?? (() => {});
  const now = options.now ?? (() => performance.now());
  const podCount = options.pods ?? 600;
  const showLines = options.lines ?? 6;
  const random = prng(options.seed ?? 7);
  const began = now();
  const checks: string[] = [];
  const check = (ok: boolean, text: string): boolean => {
    checks.push(`${ok ? '✔' : '✘'} ${text}`);
    write(`  ${ok ? s.green('✔') : s.red('✘')} ${text}\n`);
    return ok;
  };
  const heading = (text: string) => write(`\n${s.bold(s.cyan(`== ${text}`))}\n`);
  const say = (text: string) => write(`${text}\n`);
  const indent = (text: string) => text.split('\n').map((l) => `    ${s.dim(l)}`).join('\n');

  const kernel = new FakeKernel();
  const rec = recording(createFakePort(kernel), now);
  // The command's own owner prefix, as every other ipsets command uses.
  const manager = new IPSetManager({ mode: 'all', owner: DEFAULT_CLI_OWNER });
  const cluster = new Cluster(manager, random);
  const owner = manager.desiredState().owner;

  // A set someone else owns (kube-proxy style): must come out byte-identical.
  kernel.restore('create KUBE-LOAD-BALANCER-FW hash:ip,port family inet hashsize 1024 maxelem 65536\nadd KUBE-LOAD-BALANCER-FW 192.0.2.10,tcp:443\n');
  const foreignBefore = kernel.save().stdout.split('\n').filter((l) => l.includes('KUBE-')).join('\n');

  let ok = true;
  const apply = async (title: string): Promise<ApplyReport> => {
    const before = rec.restores.length;
    const started = now();
    const report = await applyIPSets(manager, rec.port);
    const ms = now() - started;
    const texts = rec.restores.slice(before);
    const bytes = texts.reduce((n, r) => n + r.text.length, 0);
    const verdict = !report.converged
      ? s.yellow('not converged')
      : report.inUseSets.length > 0
        ? s.yellow(`converged except ${report.inUseSets.length} set in use`)
        : s.green('converged');
    say(
      `${s.bold(title)}: ${formatCount(report.linesTotal)} lines (${formatPlanCounts(report.plan)}; ${formatBytes(bytes)}) in ${report.attempts.length} restore(s), ${formatDuration(ms)} — ${verdict}`,
    );
    const first = texts[0];
    if (first !== undefined && showLines > 0) say(indent(headRestore(first.text, showLines)));
    return report;
  };

  // --- 1. the cluster -------------------------------------------------------------
  heading('1. A node: namespaces, dual-stack pods with labels, named ports, policies with CIDR blocks');
  for (const spec of NAMESPACES) cluster.addNamespace(spec);
  for (let i = 0; i < podCount; i++) {
    const spec = NAMESPACES[i % NAMESPACES.length]!;
    cluster.addPod(spec.name, spec.apps[Math.floor(random() * spec.apps.length)]!);
  }
  const nested: SetMetadata = { type: 'nestedLabelOfPod', name: 'app:frontend:cart' };
  manager.addToLists([nested], [{ type: 'keyValueLabelOfPod', name: 'app:frontend' }, { type: 'keyValueLabelOfPod', name: 'app:cart' }]);
  const policySets = POLICIES.map((p) => cluster.addPolicy(p));
  const desired0 = manager.desiredState();
  const byKind = { hash: 0, list: 0, ports: 0, cidr: 0, inet6: 0 };
  for (const set of desired0.sets) {
    if (familyOfSpec(set.spec) === 'inet6') byKind.inet6++;
    if (set.spec === 'setlist') byKind.list++;
    else if (kernelTypeOfSpec(set.spec) === 'hash:ip,port') byKind.ports++;
    else if (set.spec.includes('maxelem')) byKind.cidr++;
    else byKind.hash++;
  }
  say(
    `${NAMESPACES.length} namespaces, ${formatCount(cluster.pods.size)} pods, ${POLICIES.length} policies → ${desired0.sets.length} sets ` +
      `(${byKind.hash} address sets, ${byKind.ports} named-port sets, ${byKind.cidr} CIDR sets, ${byKind.list} lists; ${byKind.inet6} of them family inet6), ${formatCount(entries(desired0))} members`,
  );
  say(`kernel names: owner ${JSON.stringify(owner)} + sha256-base36 digest, e.g. ${desired0.sets[0]?.label} → ${desired0.sets[0]?.name}`);
  say(`a foreign set is already in the kernel: KUBE-LOAD-BALANCER-FW (not ours: never touched)`);

  // --- 2. first apply, then churn --------------------------------------------------
  heading('2. First apply, then pod churn as small deltas');
  const first = await apply('first apply');
  ok = check(first.converged && first.attempts.length === 1, 'the first apply converged in one restore') && ok;
  const headers = parseListHeaders(kernel.listHeaders().stdout);
  const owned = headers.filter((h) => h.name.startsWith(owner));
  say(
    `kernel now: ${headers.length} sets (${owned.length} owned, ${headers.length - owned.length} foreign), ${formatCount(owned.reduce((n, h) => n + h.entries, 0))} owned entries`,
  );
  for (let round = 1; round <= 3; round++) {
    const gone: Pod[] = [];
    for (let i = 0; i < 3; i++) {
      const pod = cluster.randomPod();
      if (gone.includes(pod)) continue;
      gone.push(pod);
      cluster.removePod(pod);
    }
    for (const pod of gone) cluster.addPod(pod.ns, pod.app);
    const moved = cluster.randomPod();
    const spec = NAMESPACES.find((n) => n.name === moved.ns)!;
    const newApp = spec.apps.find((a) => a !== moved.app) ?? moved.app;
    cluster.relabel(moved, newApp);
    const report = await apply(`churn ${round}: ${gone.length} pods replaced, 1 relabelled to app=${newApp}`);
    ok = check(report.converged, `churn ${round} converged with ${report.linesTotal} lines (not ${formatCount(first.linesTotal)})`) && ok;
  }

  // --- 3. fault (a): a set held by an iptables rule ------------------------------
  heading('3. Fault: a policy is deleted while an iptables rule still references its CIDR set');
  const doomed = policySets[2]!;
  const doomedName = desired0.sets.find((d) => d.label === prefixedName(doomed))!.name;
  kernel.reference(doomedName);
  manager.deleteReference(prefixedName(doomed), `policy/${doomed.name}`, 'netpol');
  manager.deleteIPSet(prefixedName(doomed), 'force');
  say(`iptables still has a rule matching ${prefixedName(doomed)} (${doomedName}); the policy and its set are deleted`);
  const inUse = await apply('apply');
  write(indent(formatApplyReport(inUse, { labels: labelsOf(desired0) }).trimEnd()) + '\n');
  ok = check(inUse.inUseSets.includes(doomedName), `the refused destroy is reported in use, not hidden as success`) && ok;
  say(
    `the set stays in the kernel with all its members: the delta path destroys without a flush first (the reference's -F then -X would have left it empty under the rule), so the rule keeps matching what it matched`,
  );
  kernel.unreference(doomedName);
  say(`the iptables rule is removed; the next apply retries the destroy`);
  const released = await apply('apply');
  const stillThere = kernel.listNames().stdout.split('\n').includes(doomedName);
  ok = check(released.converged && !stillThere, `the set is destroyed once released`) && ok;

  // --- 4. fault (b): userspace error mid-batch -----------------------------------
  heading('4. Fault: a scale-up fails in userspace in the middle of a batch');
  for (let i = 0; i < 400; i++) cluster.addPod('search', 'indexer');
  const plan = planApply(manager);
  const searchSet = desired0.sets.find((d) => d.label === 'ns-search')!.name;
  const rendered = renderRestore(plan).split('\n');
  const adds = rendered.map((l, i) => (l.startsWith(`-A ${searchSet} `) ? i + 1 : 0)).filter((n) => n > 0);
  const failAt = adds[Math.min(adds.length - 1, 250)]!;
  const fault = { message: 'The set with the given name does not exist', side: 'userspace' as const };
  // What the reference's recovery would leave behind: the same fault, then a resume after the failing line.
  const referenceKernel = FakeKernel.fromJSON(kernel.toJSON());
  referenceKernel.failLine(failAt, fault);
  referenceKernel.restore(rendered.join('\n'), { exist: true });
  referenceKernel.restore(rendered.slice(failAt).join('\n'), { exist: true });
  const beforeFault = plan.lines.filter((l, i) => i < failAt - 1 && l.op === 'add' && l.set === searchSet).map((l) => l.member!);
  const referenceHas = new Set(referenceKernel.members(searchSet) ?? []);
  const lostByReference = beforeFault.filter((m) => !referenceHas.has(m));

  kernel.failLine(failAt, fault);
  say(
    `400 indexer pods start: ${formatCount(plan.lines.length)} lines; line ${formatCount(failAt)} (an add to ns-search) will fail in ipset's userspace, so the batch pending before it is never sent`,
  );
  const faulty = await apply('apply');
  write(indent(formatApplyReport(faulty, { labels: labelsOf(manager.desiredState()) }).trimEnd()) + '\n');
  const resumed = faulty.attempts.find((a) => a.action === 'resume-batch');
  const next = resumed === undefined ? undefined : faulty.attempts[faulty.attempts.indexOf(resumed) + 1];
  const resumeLine = next?.lineIndices[0] === undefined ? undefined : next.lineIndices[0] + 1;
  if (resumeLine !== undefined) {
    say(
      `attempt 2 resumed at line ${formatCount(resumeLine)}, the start of the run of adds to ns-search (${formatCount(failAt - resumeLine)} lines re-sent; -exist makes that safe)`,
    );
  }
  say(`the reference implementation (Azure NPM) resumes after line ${formatCount(failAt)}: on the same fault it leaves ${formatCount(lostByReference.length)} of these ${formatCount(beforeFault.length)} members out of the kernel, and reports success`);
  ok = check(resumeLine !== undefined && resumeLine < failAt, 'the session resumed at the start of the lost batch, not after the failing line') && ok;
  const now1 = new Set(kernel.members(searchSet) ?? []);
  ok = check(beforeFault.every((m) => now1.has(m)), `all ${formatCount(beforeFault.length)} members sent before the failing line are in the kernel`) && ok;
  ok = check(faulty.failedSets.includes(searchSet), 'the set with the skipped line is reported not converged and stays dirty') && ok;
  const retry = await apply('next apply');
  ok = check(retry.converged, 'the next apply re-sent the set\'s changes and converged (-exist makes the applied ones no-ops)') && ok;

  // --- 5. final check --------------------------------------------------------------
  heading('5. Final check: the kernel equals the desired state');
  const desired = manager.desiredState();
  const problems = compareWithDesired(kernel.save().stdout, desired);
  for (const p of problems.slice(0, 10)) say(`  ${s.red(p)}`);
  ok = check(problems.length === 0, `${desired.sets.length} owned sets, ${formatCount(entries(desired))} members: kernel = desired state`) && ok;
  const foreignAfter = kernel.save().stdout.split('\n').filter((l) => l.includes('KUBE-')).join('\n');
  ok = check(foreignAfter === foreignBefore, 'the foreign set KUBE-LOAD-BALANCER-FW is byte-identical') && ok;
  const durationMs = now() - began;
  const total = rec.restores.length;
  say(
    `\n${ok ? s.green(s.bold('demo passed')) : s.red(s.bold('demo FAILED'))}: ${total} restores, ${formatDuration(durationMs)} in total`,
  );
  return { ok, checks, kernel, desired, durationMs };
}

/** Runs `ipsets demo`; exit 0 when the final check passed, 1 otherwise. */
export async function demoCommand(options: { pods: number; seed: number; lines: number }, io: CliIo): Promise<number> {
  io.stdout.write(`ipsets demo — a node on the embedded fake kernel (ipset 7.17 semantics, in memory)\n`);
  const result = await runDemo({
    ...options,
    style: stdoutStyle(io),
    write: (text) => io.stdout.write(text),
    now: () => io.now(),
  });
  return result.ok ? EXIT.ok : EXIT.failed;
}
