/**
 * The desired state the control plane publishes: a cluster of namespaces and pods as
 * desired-state documents (the `ipsets` file format), split into parts the way a
 * producer would split it over several ConfigMaps.
 *
 * Shape (namespace-scoped, so that a pod's sets all live in its namespace's part):
 * per namespace a `namespace` set, `keyValueLabelOfPod` sets `NS/app:A`, `NS/tier:T`,
 * `NS/version:vK`, a `keyLabelOfPod` set `NS/app`, a `namedPorts` set `NS/http` of the
 * frontend pods and a `nestedLabelOfPod` list `NS/app:A:B`; cluster-wide,
 * `keyValueLabelOfNamespace` lists (`team:T`, `env:E`, members namespace sets) and the
 * policies' `cidrBlocks` sets. Parts: namespaces go round-robin into parts 0..k-2, the
 * cluster-wide sets into part k-1. With NPM's cluster-wide pod label sets a pod would
 * touch several parts instead of one (the simulator's README discusses it).
 *
 * Every version is rendered to JSON text (one document per part, and the one-file
 * document of all sets) and loaded with the `ipsets` command's own loader
 * (`parseDesiredText` + `desiredStateOf`), so the desired state the simulated agents
 * reconcile is exactly what the real agent would build from those files.
 */
import { gzipSync } from 'node:zlib';
import type { DesiredState } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '@ipsets/cli';
import type { Random } from '../prng.js';

/** The size of the cluster. */
export interface ClusterShape {
  readonly namespaces: number;
  readonly pods: number;
  /** `cidrBlocks` sets of network policies. */
  readonly policies: number;
  /** ConfigMaps the state is split over (parts mode); at least 2. */
  readonly parts: number;
}

/** The owner prefix of the simulated state. */
export const FLEET_OWNER = 'fleet-';

const TEAMS = ['retail', 'payments', 'search', 'identity', 'data', 'platform', 'media', 'ads'];
const ENVS = ['prod', 'staging', 'dev'];
const APPS = ['cart', 'checkout', 'catalog', 'ledger', 'auth', 'profile', 'index', 'query', 'ingest', 'stream', 'cache', 'api'];
const TIERS = ['frontend', 'backend', 'db'];

interface Pod {
  ns: number;
  app: number;
  tier: number;
  version: number;
  ip: number;
}

/** One part as published: its text and what it costs on the wire. */
export interface PartContent {
  /** The version that last changed this part (equal ids, equal bytes). */
  readonly changedIn: number;
  /** JSON text of the part's document. */
  readonly text: string;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
  /** Bytes of `text` gzipped (level 6, what `gzip` does by default). */
  readonly gzipBytes: number;
}

/** One published version of the desired state. */
export interface StateVersion {
  readonly id: number;
  /** The parts (parts and gzip modes). */
  readonly parts: readonly PartContent[];
  /** The one-file document (every set). */
  readonly whole: PartContent;
  /** Parts whose bytes differ from the previous version. */
  readonly changedParts: readonly number[];
  /** The desired state the agent builds from these files. */
  readonly desired: DesiredState;
  readonly sets: number;
  readonly members: number;
}

const ipText = (n: number): string => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
const BASE_IP = (10 << 24) | (244 << 16);

/** The cluster's mutable state and its versions (see the module comment). */
export class ClusterState {
  private readonly pods = new Map<number, Pod>();
  private readonly freeIps: number[] = [];
  private nextIp = 2;
  private nextPod = 0;
  private readonly policies: string[][] = [];
  private readonly extraLabels = new Map<number, Set<number>>();
  private readonly dirty: boolean[];
  private readonly versions: StateVersion[] = [];
  private readonly ids = new Map<DesiredState, number>();
  private previous: PartContent[] = [];

  constructor(
    readonly shape: ClusterShape,
    private readonly random: Random,
  ) {
    if (!Number.isInteger(shape.parts) || shape.parts < 2) throw new RangeError(`parts must be an integer of at least 2, got ${JSON.stringify(shape.parts)}`);
    if (!Number.isInteger(shape.namespaces) || shape.namespaces < 1) throw new RangeError(`namespaces must be a positive integer, got ${JSON.stringify(shape.namespaces)}`);
    this.dirty = Array.from({ length: shape.parts }, () => true);
    for (let i = 0; i < shape.pods; i++) this.addPod();
    for (let i = 0; i < shape.policies; i++) this.policies.push(this.policyBlocks());
  }

  /** The part that holds namespace `ns`'s sets. */
  partOfNamespace(ns: number): number {
    return ns % (this.shape.parts - 1);
  }

  private get clusterPart(): number {
    return this.shape.parts - 1;
  }

  private namespaceName(ns: number): string {
    if (ns === 0) return 'default';
    if (ns === 1) return 'kube-system';
    return `${TEAMS[ns % TEAMS.length]}-${ENVS[ns % ENVS.length]}-${Math.floor(ns / TEAMS.length)}`;
  }

  private addPod(): void {
    const ns = this.random.int(0, this.shape.namespaces - 1);
    const ip = this.freeIps.length > 0 ? this.freeIps.shift()! : BASE_IP + this.nextIp++;
    const pod: Pod = { ns, app: this.random.int(0, 3) + (ns % (APPS.length - 3)), tier: this.random.int(0, TIERS.length - 1), version: this.random.int(1, 2), ip };
    this.pods.set(this.nextPod++, pod);
    this.dirty[this.partOfNamespace(ns)] = true;
  }

  private policyBlocks(): string[] {
    const a = this.random.int(100, 223);
    const b = this.random.int(0, 255);
    return [`${a}.0.0.0/8`, `${a}.${b}.0.0/16 nomatch`];
  }

  /** One pod deleted and one created (its IP is reused later): one namespace part changes, or two. */
  churnPod(): void {
    const ids = [...this.pods.keys()];
    if (ids.length > 0) {
      const id = ids[this.random.int(0, ids.length - 1)]!;
      const pod = this.pods.get(id)!;
      this.pods.delete(id);
      this.extraLabels.get(pod.ns)?.delete(id);
      this.freeIps.push(pod.ip);
      this.dirty[this.partOfNamespace(pod.ns)] = true;
    }
    this.addPod();
  }

  /**
   * A new network policy: a `cidrBlocks` set (the cluster part) and a new pod label
   * (`NS/role:client`) on up to 50 pods of one namespace (that namespace's part).
   */
  policyChange(): void {
    this.policies.push(this.policyBlocks());
    this.dirty[this.clusterPart] = true;
    const ns = this.random.int(0, this.shape.namespaces - 1);
    const labelled = this.extraLabels.get(ns) ?? new Set<number>();
    for (const [id, pod] of this.pods) {
      if (labelled.size >= 50) break;
      if (pod.ns === ns) labelled.add(id);
    }
    this.extraLabels.set(ns, labelled);
    this.dirty[this.partOfNamespace(ns)] = true;
  }

  /** The versions published so far. */
  version(id: number): StateVersion {
    const v = this.versions[id];
    if (v === undefined) throw new RangeError(`no version ${id} (${this.versions.length} published)`);
    return v;
  }

  /** The version whose desired state this is (the agents hand their desired state back to the driver). */
  versionOf(desired: DesiredState): number {
    const id = this.ids.get(desired);
    if (id === undefined) throw new RangeError('a desired state that no published version holds');
    return id;
  }

  /** The newest version. */
  get latest(): StateVersion {
    return this.versions[this.versions.length - 1]!;
  }

  /** Renders the current state as a new version (only dirty parts are rendered again). */
  snapshot(): StateVersion {
    const id = this.versions.length;
    const docs = this.partSets();
    const parts: PartContent[] = [];
    const changedParts: number[] = [];
    for (let p = 0; p < this.shape.parts; p++) {
      if (this.dirty[p] || this.previous[p] === undefined) {
        const text = renderDocument(docs[p]!);
        const old = this.previous[p];
        if (old !== undefined && old.text === text) {
          parts.push(old);
        } else {
          parts.push(content(id, text));
          changedParts.push(p);
        }
        this.dirty[p] = false;
      } else {
        parts.push(this.previous[p]!);
      }
    }
    const all = docs.flat();
    const wholeText = renderDocument(all);
    const source = `version ${id}`;
    const desired = desiredStateOf(parseDesiredText(wholeText, { source }));
    const version: StateVersion = {
      id,
      parts,
      whole: changedParts.length === 0 && id > 0 ? this.latest.whole : content(id, wholeText),
      changedParts,
      desired,
      sets: all.length,
      members: all.reduce((n, s) => n + s.members.length, 0),
    };
    this.previous = parts;
    this.versions.push(version);
    this.ids.set(desired, id);
    return version;
  }

  /** The sets of each part, in a fixed order. */
  private partSets(): FileSet[][] {
    const { namespaces, parts } = this.shape;
    const byNs: Pod[][] = Array.from({ length: namespaces }, () => []);
    const podIds: number[][] = Array.from({ length: namespaces }, () => []);
    for (const [id, pod] of this.pods) {
      byNs[pod.ns]!.push(pod);
      podIds[pod.ns]!.push(id);
    }
    const out: FileSet[][] = Array.from({ length: parts }, () => []);
    for (let ns = 0; ns < namespaces; ns++) {
      const name = this.namespaceName(ns);
      const pods = byNs[ns]!.slice().sort((a, b) => a.ip - b.ip);
      const sets = out[this.partOfNamespace(ns)]!;
      const group = (type: string, setName: string, keep: (p: Pod) => boolean, member = (p: Pod) => ipText(p.ip)): void => {
        const members = pods.filter(keep).map(member);
        if (members.length > 0) sets.push({ type, name: setName, members });
      };
      group('namespace', name, () => true);
      group('keyLabelOfPod', `${name}/app`, () => true);
      const apps = [...new Set(pods.map((p) => p.app))].sort((a, b) => a - b);
      for (const app of apps) group('keyValueLabelOfPod', `${name}/app:${APPS[app]}`, (p) => p.app === app);
      for (let t = 0; t < TIERS.length; t++) group('keyValueLabelOfPod', `${name}/tier:${TIERS[t]}`, (p) => p.tier === t);
      for (const v of [1, 2]) group('keyValueLabelOfPod', `${name}/version:v${v}`, (p) => p.version === v);
      group('namedPorts', `${name}/http`, (p) => p.tier === 0, (p) => `${ipText(p.ip)},tcp:8080`);
      const labelled = this.extraLabels.get(ns);
      if (labelled !== undefined && labelled.size > 0) {
        const ids = new Set(labelled);
        const members = byNs[ns]!.filter((_, i) => ids.has(podIds[ns]![i]!)).sort((a, b) => a.ip - b.ip).map((p) => ipText(p.ip));
        if (members.length > 0) sets.push({ type: 'keyValueLabelOfPod', name: `${name}/role:client`, members });
      }
      if (apps.length >= 2) {
        sets.push({
          type: 'nestedLabelOfPod',
          name: `${name}/app:${APPS[apps[0]!]}:${APPS[apps[1]!]}`,
          members: apps.slice(0, 2).map((a) => ({ type: 'keyValueLabelOfPod', name: `${name}/app:${APPS[a]}` })),
        });
      }
    }
    const cluster = out[this.clusterPart]!;
    const present = (ns: number): boolean => byNs[ns]!.length > 0;
    for (let t = 0; t < TEAMS.length; t++) {
      const members = range(namespaces).filter((ns) => present(ns) && ns % TEAMS.length === t).map((ns) => ({ type: 'namespace', name: this.namespaceName(ns) }));
      if (members.length > 0) cluster.push({ type: 'keyValueLabelOfNamespace', name: `team:${TEAMS[t]}`, members });
    }
    for (let e = 0; e < ENVS.length; e++) {
      const members = range(namespaces).filter((ns) => present(ns) && ns % ENVS.length === e).map((ns) => ({ type: 'namespace', name: this.namespaceName(ns) }));
      if (members.length > 0) cluster.push({ type: 'keyValueLabelOfNamespace', name: `env:${ENVS[e]}`, members });
    }
    this.policies.forEach((blocks, i) => cluster.push({ type: 'cidrBlocks', name: `policy-${i}`, members: blocks }));
    return out;
  }
}

interface FileSet {
  type: string;
  name: string;
  members: (string | { type: string; name: string })[];
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** A document of the `ipsets` file format, one member per line (as a person or `jq` would write it). */
function renderDocument(sets: readonly FileSet[]): string {
  return `${JSON.stringify({ owner: FLEET_OWNER, scheme: 'sha256-base36', sets }, null, 1)}\n`;
}

const encoder = new TextEncoder();

function content(id: number, text: string): PartContent {
  const bytes = encoder.encode(text);
  return { changedIn: id, text, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 6 }).length };
}
