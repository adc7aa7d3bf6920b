/**
 * The demo's cluster: namespaces, dual-stack pods with labels and named ports, and
 * network policies with CIDR blocks, driving an IPSetManager the way NPM's
 * controllers do. Seeded: the same seed gives the same cluster.
 */
import type { IPSetManager, SetMetadata } from '@ipsets/core';

/** mulberry32: a small seeded PRNG; the story is the same for the same seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pod of the scenario: its namespace, addresses (one per family) and labels. */
export interface Pod {
  readonly key: string;
  readonly ns: string;
  readonly ip: string;
  /** The pod's IPv6 address (the manager puts it in the sets' family inet6 siblings). */
  readonly ip6: string;
  app: string;
  readonly tier: string;
}

/** The cluster's namespaces: team label and the apps their pods run. */
export const NAMESPACES = [
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

/** Network policies: the CIDR blocks (with nomatch except blocks) of each. */
export const POLICIES = [
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
export class Cluster {
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
