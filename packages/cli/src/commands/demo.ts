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
import {
  IPSetManager,
  applyIPSets,
  familyOfSpec,
  kernelTypeOfSpec,
  parseListHeaders,
  parseSave,
  planApply,
  prefixedName,
  renderRestore,
} from '@ipsets/core';
import type { ApplyReport, CommandResult, DesiredState, IpsetPort, SetMetadata } from '@ipsets/core';
import { FakeKernel, createFakePort } from '@ipsets/testing';
import { EXIT, stdoutStyle } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { formatApplyReport, formatBytes, formatCount, formatDuration, formatPlanCounts, headRestore, labelsOf } from '../format.js';
import { createStyle } from '../style.js';
import type { Style } from '../style.js';
import { wrapPort } from '../port-wrap.js';

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

// mulberry32: a small seeded PRNG; the story is the same for the same seed.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Pod {
  readonly key: string;
  readonly ns: string;
  readonly ip: string;
  /** The pod's IPv6 address (the manager puts it in the sets' family inet6 siblings). */
  readonly ip6: string;
  app: string;
  readonly tier: string;
}

const NAMESPACES = [
  { name: 'shop', team: 'retail', apps: ['frontend', 'cart', 'catalog'] },
  { name: 'payments', team: 'payments', apps: ['ledger', 'gateway'] },
  { name: 'search', team: 'search', apps: ['query', 'indexer'] },
  { name: 'identity', team: 'identity', apps: ['auth', 'profile'] },
  { name: 'media', team: 'media', apps: ['thumbs', 'encoder'] },
  { name: 'kube-system', team: 'platform', apps: ['coredns', 'metrics-server'] },
];
const TIERS: Record<string, string> = {
  frontend: 'frontend', cart: 'backend', catalog: 'backend', ledger: 'db', gateway: 'frontend', query: 'backend',
  indexer: 'backend', auth: 'backend', profile: 'db', thumbs: 'backend', encoder: 'backend', coredns: 'backend',
  'metrics-server': 'backend',
};

const POLICIES = [
  { name: 'allow-egress-in-ns-shop-0out', members: ['10.0.0.0/8', '10.96.0.0/12 nomatch', '172.16.0.0/12', 'fd00::/8', 'fd00:10:96::/108 nomatch'] },
  { name: 'allow-partners-in-ns-payments-0in', members: ['203.0.113.0/24', '198.51.100.0/24', '198.51.100.128/25 nomatch'] },
  { name: 'deny-metadata-in-ns-media-0out', members: ['169.254.0.0/16', '169.254.169.254 nomatch'] },
  { name: 'allow-ingress-in-ns-search-0in', members: ['10.244.0.0/16', '10.244.128.0/17 nomatch', 'fd00:10:244::/56'] },
];

const ns = (name: string): SetMetadata => ({ type: 'namespace', name });
const podSets = (pod: Pod): SetMetadata[] => [
  ns(pod.ns),
  { type: 'keyLabelOfPod', name: 'app' },
  { type: 'keyValueLabelOfPod', name: `app:${pod.app}` },
  { type: 'keyLabelOfPod', name: 'tier' },
  { type: 'keyValueLabelOfPod', name: `tier:${pod.tier}` },
];
const HTTP: SetMetadata = { type: 'namedPorts', name: 'http' };
const METRICS: SetMetadata = { type: 'namedPorts', name: 'metrics' };

/** The cluster as the node agent sees it, driving the manager the way NPM's controllers do. */
class Cluster {
  readonly pods = new Map<string, Pod>();
  private nextIp = 2;
  private serial = 0;

  constructor(
    readonly manager: IPSetManager,
    private readonly random: () => number,
  ) {}

  private ip(): [string, string] {
    const n = this.nextIp++;
    return [`10.244.${n >> 8}.${n & 255}`, `fd00:10:244::${n.toString(16)}`];
  }

  addNamespace(spec: (typeof NAMESPACES)[number]): void {
    this.manager.createIPSets([ns(spec.name)]);
    this.manager.addToLists(
      [
        { type: 'keyLabelOfNamespace', name: 'team' },
        { type: 'keyValueLabelOfNamespace', name: `team:${spec.team}` },
        { type: 'keyValueLabelOfNamespace', name: `kubernetes.io/metadata.name:${spec.name}` },
      ],
      [ns(spec.name)],
    );
  }

  addPod(nsName: string, app: string): Pod {
    this.serial += 1;
    const [ip, ip6] = this.ip();
    const pod: Pod = { key: `${nsName}/${app}-${this.serial.toString(36)}`, ns: nsName, ip, ip6, app, tier: TIERS[app] ?? 'backend' };
    this.pods.set(pod.key, pod);
    const metrics = this.random() < 0.5;
    // Both addresses go to the same logical sets; the manager routes each to its family's kernel set.
    for (const address of [pod.ip, pod.ip6]) {
      for (const set of podSets(pod)) this.manager.addToSets([set], address, pod.key);
      if (pod.tier !== 'db') this.manager.addToSets([HTTP], `${address},tcp:8080`, pod.key);
      if (metrics) this.manager.addToSets([METRICS], `${address},tcp:9090`, pod.key);
    }
    return pod;
  }

  removePod(pod: Pod): void {
    for (const address of [pod.ip, pod.ip6]) {
      this.manager.removeFromSets(podSets(pod), address, pod.key);
      this.manager.removeFromSets([HTTP], `${address},tcp:8080`, pod.key);
      this.manager.removeFromSets([METRICS], `${address},tcp:9090`, pod.key);
    }
    this.pods.delete(pod.key);
  }

  relabel(pod: Pod, app: string): void {
    for (const address of [pod.ip, pod.ip6]) {
      this.manager.removeFromSets([{ type: 'keyValueLabelOfPod', name: `app:${pod.app}` }], address, pod.key);
    }
    pod.app = app;
    for (const address of [pod.ip, pod.ip6]) {
      this.manager.addToSets([{ type: 'keyValueLabelOfPod', name: `app:${app}` }], address, pod.key);
    }
  }

  randomPod(): Pod {
    const all = [...this.pods.values()];
    return all[Math.floor(this.random() * all.length)]!;
  }

  addPolicy(policy: (typeof POLICIES)[number]): SetMetadata {
    const meta: SetMetadata = { type: 'cidrBlocks', name: policy.name };
    this.manager.createIPSets([meta]);
    for (const member of policy.members) this.manager.addToSets([meta], member, `policy/${policy.name}`);
    this.manager.addReference(meta, `policy/${policy.name}`, 'netpol');
    return meta;
  }
}

/** A port that remembers each restore (text, result, time) for the story. */
function recording(port: IpsetPort, now: () => number) {
  const restores: { text: string; result: CommandResult; ms: number }[] = [];
  const wrapped = wrapPort(port, {
    async restore(text, o, next) {
      const started = now();
      const result = await next(text, o);
      restores.push({ text, result, ms: now() - started });
      return result;
    },
  });
  return { port: wrapped, restores };
}

/** Compares the kernel's owned sets with the desired state, canonically; returns the differences. */
export function compareWithDesired(saveText: string, desired: DesiredState): string[] {
  const problems: string[] = [];
  const snapshot = parseSave(saveText);
  for (const p of snapshot.problems) problems.push(`save line ${p.line} unparsed: ${p.reason}`);
  const kernel = new Map(snapshot.sets.filter((s) => s.name.startsWith(desired.owner)).map((s) => [s.name, s]));
  for (const want of desired.sets) {
    const have = kernel.get(want.name);
    const label = want.label ?? want.name;
    if (have === undefined) {
      problems.push(`${label}: missing from the kernel`);
      continue;
    }
    kernel.delete(want.name);
    const type = kernelTypeOfSpec(want.spec);
    if (have.type !== type) problems.push(`${label}: kernel type ${have.type}, expected ${type}`);
    const family = familyOfSpec(want.spec);
    const haveFamily = /\bfamily (\S+)/.exec(have.options)?.[1];
    if (family !== undefined && haveFamily !== family) problems.push(`${label}: kernel family ${haveFamily ?? '(none)'}, expected ${family}`);
    const haveMembers = new Set(have.members);
    const wantMembers = new Set(want.members);
    const missing = [...wantMembers].filter((m) => !haveMembers.has(m));
    const extra = [...haveMembers].filter((m) => !wantMembers.has(m));
    if (missing.length > 0) problems.push(`${label}: ${missing.length} member(s) missing, e.g. ${missing[0]}`);
    if (extra.length > 0) problems.push(`${label}: ${extra.length} unexpected member(s), e.g. ${extra[0]}`);
  }
  for (const name of kernel.keys()) problems.push(`${name}: owned set in the kernel that is not desired`);
  return problems;
}

function entries(state: DesiredState): number {
  let n = 0;
  for (const s of state.sets) n += s.members.length;
  return n;
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
  const manager = new IPSetManager({ mode: 'all' });
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
    `the set stays in the kernel, flushed (this is the reference's delta path: -F then -X); \`ipsets apply\` (reconcile) leaves a referenced set untouched instead, so the rule keeps matching what it matched`,
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
  const seedKernel = FakeKernel.fromJSON(kernel.toJSON());
  seedKernel.failLine(failAt, fault);
  seedKernel.restore(rendered.join('\n'), { exist: true });
  seedKernel.restore(rendered.slice(failAt).join('\n'), { exist: true });
  const beforeFault = plan.lines.filter((l, i) => i < failAt - 1 && l.op === 'add' && l.set === searchSet).map((l) => l.member!);
  const seedHas = new Set(seedKernel.members(searchSet) ?? []);
  const lostBySeed = beforeFault.filter((m) => !seedHas.has(m));

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
  say(`the reference implementation (Azure NPM) resumes after line ${formatCount(failAt)}: on the same fault it leaves ${formatCount(lostBySeed.length)} of these ${formatCount(beforeFault.length)} members out of the kernel, and reports success`);
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
