/**
 * The cluster trace: what the Kubernetes API server would tell every node's policy
 * agent, as a list of events in time order. Namespaces come first, then pod churn
 * (create, delete, relabel), namespace label changes and network policies being
 * created and deleted. The trace is a pure function of its options: the same seed
 * gives the same events.
 *
 * Every event carries everything a node needs to act on it (a deleted pod comes with
 * its last labels, as an informer's delete does), so nodes share no state.
 */
import { mulberry32 } from './prng.js';
import type { Random } from './prng.js';

/** A pod label, `[key, value]`. */
export type Label = readonly [key: string, value: string];

/** A container port with a name, which NPM keeps in a `namedPorts` set. */
export interface NamedPort {
  readonly name: string;
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
}

/** A pod as a node's agent sees it. */
export interface Pod {
  /** `namespace/name`: the owner key of the pod's IP in every set. */
  readonly key: string;
  /** The node the pod is scheduled on (0-based). */
  readonly node: number;
  readonly ip: string;
  readonly namespace: string;
  readonly labels: readonly Label[];
  readonly ports: readonly NamedPort[];
}

/** A network policy, reduced to the sets it makes NPM keep. */
export interface Policy {
  /** `namespace/name`. */
  readonly key: string;
  readonly namespace: string;
  /** The pods it applies to: `app=<value>` in its namespace (selector references). */
  readonly podSelector: Label;
  /** Ingress from pods with `app in (values)` (a nested label list, netpol reference). */
  readonly fromApps: readonly string[];
  /** Ingress from namespaces labelled `team=<value>` (a namespace label list, netpol reference). */
  readonly fromTeam: string;
  /** Egress to a CIDR block with one except block (a cidr set, netpol reference). */
  readonly cidr: string;
  readonly except: string;
  /** Ingress on a named port (a namedPorts set, netpol reference). */
  readonly port: string;
}

/** One event of the trace; `at` is its time at the API server, in simulated microseconds. */
export type ClusterEvent =
  | { readonly kind: 'namespace-create'; readonly at: number; readonly namespace: string; readonly labels: readonly Label[] }
  | { readonly kind: 'namespace-relabel'; readonly at: number; readonly namespace: string; readonly before: Label; readonly after: Label }
  | { readonly kind: 'pod-create'; readonly at: number; readonly pod: Pod }
  | { readonly kind: 'pod-delete'; readonly at: number; readonly pod: Pod }
  | { readonly kind: 'pod-relabel'; readonly at: number; readonly before: Pod; readonly after: Pod }
  | { readonly kind: 'policy-create'; readonly at: number; readonly policy: Policy }
  | { readonly kind: 'policy-delete'; readonly at: number; readonly policy: Policy };

/** Options of {@link generateTrace}. */
export interface TraceOptions {
  readonly seed: number;
  /** Churn events after the namespaces are created. */
  readonly events: number;
  /** Number of namespaces (default 8). */
  readonly namespaces?: number;
  /** Pods the cluster hovers around (default 400). */
  readonly pods?: number;
  /** Policies the cluster hovers around (default 40). */
  readonly policies?: number;
  /** Mean time between two events at the API server, in microseconds (default 10,000: 100 events a second). */
  readonly meanGapUs?: number;
  /** Nodes pods are scheduled on, uniformly (default 1). */
  readonly nodes?: number;
}

const APPS = ['web', 'api', 'db', 'cache', 'queue', 'auth', 'search', 'batch'] as const;
const TIERS = ['frontend', 'backend', 'data'] as const;
const VERSIONS = ['v1', 'v2', 'v3'] as const;
const TEAMS = ['retail', 'payments', 'platform', 'data'] as const;
const ENVS = ['prod', 'staging'] as const;

function portsOf(app: string, random: Random): NamedPort[] {
  const ports: NamedPort[] = [];
  if (app === 'db') ports.push({ name: 'postgres', protocol: 'tcp', port: 5432 });
  else if (app === 'cache') ports.push({ name: 'redis', protocol: 'tcp', port: 6379 });
  else ports.push({ name: 'http', protocol: 'tcp', port: 8080 });
  if (random.chance(0.5)) ports.push({ name: 'metrics', protocol: 'tcp', port: 9090 });
  if (app === 'queue') ports.push({ name: 'amqp', protocol: 'tcp', port: 5672 });
  if (random.chance(0.1)) ports.push({ name: 'dns', protocol: 'udp', port: 53 });
  return ports;
}

function podLabels(random: Random): Label[] {
  const labels: Label[] = [['app', random.pick(APPS)], ['tier', random.pick(TIERS)]];
  if (random.chance(0.6)) labels.push(['version', random.pick(VERSIONS)]);
  return labels;
}

/** Generates a trace (see the module documentation). */
export function generateTrace(options: TraceOptions): ClusterEvent[] {
  const random = mulberry32(options.seed);
  const namespaceCount = options.namespaces ?? 8;
  const targetPods = options.pods ?? 400;
  const targetPolicies = options.policies ?? 40;
  const meanGap = options.meanGapUs ?? 10_000;
  const nodeCount = Math.max(1, options.nodes ?? 1);
  const events: ClusterEvent[] = [];
  let at = 0;

  const namespaces: string[] = [];
  const teamOf = new Map<string, string>();
  for (let i = 0; i < namespaceCount; i++) {
    const namespace = `team${i}`;
    const team = TEAMS[i % TEAMS.length]!;
    namespaces.push(namespace);
    teamOf.set(namespace, team);
    events.push({ kind: 'namespace-create', at, namespace, labels: [['team', team], ['env', ENVS[i % ENVS.length]!]] });
  }

  // Pod IPs come from 10.244.0.0/16; a freed IP goes back to the pool and is soon
  // given to another pod, which is what makes pod keys matter (a late delete of the
  // old pod must not remove the new pod's IP).
  const freeIps: number[] = [];
  let nextIp = 2;
  const takeIp = (): string => {
    const n = freeIps.length > 0 && random.chance(0.7) ? freeIps.splice(random.int(0, freeIps.length - 1), 1)[0]! : nextIp++;
    return `10.244.${n >> 8}.${n & 255}`;
  };
  const giveIp = (ip: string): void => {
    const [, , c, d] = ip.split('.').map(Number) as [number, number, number, number];
    freeIps.push((c << 8) | d);
  };

  const pods: Pod[] = [];
  const policies: Policy[] = [];
  let podSerial = 0;
  let policySerial = 0;
  for (let e = 0; e < options.events; e++) {
    // Exponential gaps (a Poisson arrival process), whole microseconds.
    at += Math.max(1, Math.round(-Math.log(1 - random.next()) * meanGap));
    const roll = random.next();
    if (roll < 0.62 || pods.length === 0) {
      // Pods: create below the target population, delete above it.
      const create = pods.length === 0 || random.chance(targetPods / (targetPods + pods.length));
      if (create) {
        const namespace = random.pick(namespaces);
        const labels = podLabels(random);
        const pod: Pod = {
          key: `${namespace}/pod-${podSerial++}`,
          node: random.int(0, nodeCount - 1),
          ip: takeIp(),
          namespace,
          labels,
          ports: portsOf(labels[0]![1], random),
        };
        pods.push(pod);
        events.push({ kind: 'pod-create', at, pod });
      } else {
        const pod = pods.splice(random.int(0, pods.length - 1), 1)[0]!;
        giveIp(pod.ip);
        events.push({ kind: 'pod-delete', at, pod });
      }
    } else if (roll < 0.94) {
      const i = random.int(0, pods.length - 1);
      const before = pods[i]!;
      const labels = before.labels.map((l) => (l[0] === 'version' || random.chance(0.3) ? ([l[0], relabel(l, random)] as Label) : l));
      if (!labels.some((l) => l[0] === 'version')) labels.push(['version', random.pick(VERSIONS)]);
      const after: Pod = { ...before, labels };
      pods[i] = after;
      events.push({ kind: 'pod-relabel', at, before, after });
    } else if (roll < 0.96) {
      const namespace = random.pick(namespaces);
      const old = teamOf.get(namespace)!;
      const team = random.pick(TEAMS.filter((t) => t !== old));
      teamOf.set(namespace, team);
      events.push({ kind: 'namespace-relabel', at, namespace, before: ['team', old], after: ['team', team] });
    } else {
      const create = policies.length === 0 || random.chance(targetPolicies / (targetPolicies + policies.length));
      if (create) {
        const namespace = random.pick(namespaces);
        const a = random.int(1, 250);
        const first = random.pick(APPS);
        const second = random.pick(APPS.filter((x) => x !== first));
        const policy: Policy = {
          key: `${namespace}/policy-${policySerial++}`,
          namespace,
          podSelector: ['app', random.pick(APPS)],
          // Sorted, so that two policies with the same pair share one nested list.
          fromApps: [first, second].sort(),
          fromTeam: random.pick(TEAMS),
          cidr: `10.${a}.0.0/16`,
          except: `10.${a}.${random.int(0, 255)}.0/24`,
          port: random.pick(['http', 'metrics', 'postgres']),
        };
        policies.push(policy);
        events.push({ kind: 'policy-create', at, policy });
      } else {
        const policy = policies.splice(random.int(0, policies.length - 1), 1)[0]!;
        events.push({ kind: 'policy-delete', at, policy });
      }
    }
  }
  return events;
}

function relabel(label: Label, random: Random): string {
  const choices: readonly string[] = label[0] === 'app' ? APPS : label[0] === 'tier' ? TIERS : VERSIONS;
  return random.pick(choices.filter((c) => c !== label[1]));
}
