/**
 * Every cost the fleet simulation charges, in one place: what the kernel side costs
 * (`ipset save` / `ipset restore`, measured on a real kernel), what the agent's own
 * work costs (reading, digesting, decompressing and parsing desired files, planning a
 * reconcile), what a node's agent holds in memory, and how each delivery mode turns a
 * published version into bytes on the wire and work on the node.
 *
 * The simulation runs the real scheduling and planning code; it never measures time
 * while it runs (that would make the report depend on the machine's load). Instead it
 * counts what the real code did — members saved, restore lines planned, bytes read and
 * parsed — and charges these costs for them. `npm run simulate -- --calibrate` measures
 * them again on the machine it runs on (root and `ipset` needed for the kernel rows)
 * and prints a `CostModel` to paste here.
 *
 * The delivery modes model the agent's reading of a folder of parts (`ipsets agent
 * DIR`, the CLI's `desired/parts`): every part read and hashed on each check, only the
 * parts whose digest changed decompressed (`.gz`, bounded by the CLI's own
 * `MAX_DECOMPRESSED_PART_BYTES`) and parsed, one after the other. Their per-mode terms
 * are in {@link DELIVERY_MODES}; a test runs the CLI's reader on the simulated parts.
 */
import { MAX_DECOMPRESSED_PART_BYTES } from '@ipsets/cli';
import type { PartContent, StateVersion } from './cluster-state.js';

/** The kernel side, per node (CPU of the `ipset` processes, µs). */
export interface KernelCosts {
  /** Starting one `ipset` process inside the node's network namespace and its netlink setup. */
  readonly ipsetRunUs: number;
  /** `ipset save`, per member saved. */
  readonly saveUsPerMember: number;
  /** `ipset restore`, per line. */
  readonly restoreUsPerLine: number;
}

/** The agent's own CPU (µs). */
export interface AgentCosts {
  /** One reconcile's fixed share: the queue, the `list -t` read, the report, metrics and the log line. */
  readonly reconcileFixedUs: number;
  /** Parsing the `ipset save` text and planning against the desired state, per member saved. */
  readonly planUsPerMember: number;
  /** Reading a file and hashing it (SHA-256), per byte. */
  readonly readUsPerByte: number;
  /** Parsing and validating desired-file JSON with the `ipsets` loader, per byte of text. */
  readonly parseUsPerByte: number;
  /** gunzip, per byte of decompressed text. */
  readonly gunzipUsPerByte: number;
  /** A process start: Node and the command's modules loaded, before the first read. */
  readonly processStartUs: number;
}

/** What a node's agent holds (bytes). */
export interface MemoryCosts {
  /** RSS of an agent with an empty state (Node, the command's modules, metrics). */
  readonly baseBytes: number;
  /** RSS per member of the desired state in force, between reconciles. */
  readonly bytesPerMember: number;
  /** Peak above that while one desired-file text is parsed, per byte of text (text + document + checks). */
  readonly parseBytesPerTextByte: number;
  /** Peak above the steady RSS during a reconcile, per member saved (the save text and its parsed form). */
  readonly saveBytesPerMember: number;
}

/** The whole cost model, with where its numbers came from. */
export interface CostModel {
  readonly kernel: KernelCosts;
  readonly agent: AgentCosts;
  readonly memory: MemoryCosts;
  /** Provenance: the command, the machine, the load. */
  readonly measured: string;
}

/**
 * The default cost model, measured on this repository's 2-core build machine by
 * `npm run simulate -- --calibrate` (its output, rounded; the README has the raw
 * samples, the load, and which rows come from the real kernel).
 */
export const DEFAULT_COST_MODEL: CostModel = Object.freeze({
  // Real kernel (ipset v7.17 in a network namespace): CPU of the ipset child (and of `ip netns exec`).
  kernel: Object.freeze({ ipsetRunUs: 3_600, saveUsPerMember: 1.18, restoreUsPerLine: 3.62 }),
  agent: Object.freeze({
    // From the real agent's converged ticks at 21,521 and 213,712 members (real kernel), the save's share taken out.
    reconcileFixedUs: 65_700,
    planUsPerMember: 0.98,
    // In-process measurements of the command's own code (no kernel involved).
    readUsPerByte: 0.00115,
    parseUsPerByte: 0.0204,
    gunzipUsPerByte: 0.00094,
    processStartUs: 370_000,
  }),
  // The real agent's VmRSS at the two sizes (real kernel).
  memory: Object.freeze({ baseBytes: 87_000_000, bytesPerMember: 404, parseBytesPerTextByte: 26.7, saveBytesPerMember: 582 }),
  measured: 'npm run simulate -- --calibrate, 2026-12-01, 2 cores, load 6.9-8.1; ipset v7.17 (kernel, plan and memory rows real)',
});

/** The largest object etcd stores: a ConfigMap (data plus metadata) above it is refused by the API server. */
export const CONFIGMAP_LIMIT_BYTES = 1024 * 1024;

/**
 * Bytes of one ConfigMap on a watch besides its data: metadata (name, namespace, uid,
 * resourceVersion, timestamps, one managedFields entry) and the watch event around it,
 * protobuf-encoded as kubelets receive it. An assumption, not a measurement.
 */
export const CONFIGMAP_OVERHEAD_BYTES = 600;

/**
 * The bound on a gzip part's decompressed text, the CLI's own: a part that would expand
 * past it is refused (a decompression bomb costs the agent at most this much memory).
 */
export { MAX_DECOMPRESSED_PART_BYTES };

/** The delivery modes the simulation compares. */
export type DeliveryModeName = 'one-file' | 'parts' | 'gzip-parts';

/** All of them, in report order. */
export const DELIVERY_MODE_NAMES: readonly DeliveryModeName[] = ['one-file', 'parts', 'gzip-parts'];

/** What one check of the desired files costs a node's agent. */
export interface CheckCost {
  /** CPU, µs. */
  readonly cpuUs: number;
  /** Peak memory above the steady state while checking, bytes. */
  readonly transientBytes: number;
  /** Files whose text was parsed. */
  readonly parsed: number;
}

/** How a delivery mode publishes a version and what reading it costs on a node. */
export interface DeliveryMode {
  readonly name: DeliveryModeName;
  /** One line for the report. */
  readonly describe: string;
  /** The ConfigMaps of a version (one object per file). */
  objectsOf(version: StateVersion): readonly PartContent[];
  /** Bytes of one object on the wire: the API server sends it whole to every kubelet that mounts it. */
  wireBytes(object: PartContent): number;
  /** Bytes of one file on the node's volume (what a check reads and hashes). */
  fileBytes(object: PartContent): number;
  /**
   * One check of the desired files after the volume moved from `seen` (what the agent
   * last read; undefined at start) to `now`: every file is read and hashed (a `..data`
   * swap replaces every file of the volume), and only files whose digest changed are
   * decompressed and parsed.
   */
  check(seen: StateVersion | undefined, now: StateVersion, costs: CostModel): CheckCost;
}

function checkCost(mode: DeliveryMode, seen: StateVersion | undefined, now: StateVersion, costs: CostModel, gzip: boolean): CheckCost {
  const { agent, memory } = costs;
  const before = seen === undefined ? [] : mode.objectsOf(seen);
  let cpuUs = 0;
  let transientBytes = 0;
  let parsed = 0;
  mode.objectsOf(now).forEach((object, i) => {
    cpuUs += mode.fileBytes(object) * agent.readUsPerByte;
    if (before[i]?.changedIn === object.changedIn) return;
    parsed++;
    if (gzip) {
      if (object.bytes > MAX_DECOMPRESSED_PART_BYTES) {
        throw new RangeError(`a gzip part expands to ${object.bytes} bytes, past the ${MAX_DECOMPRESSED_PART_BYTES}-byte bound: the agent would refuse it`);
      }
      cpuUs += object.bytes * agent.gunzipUsPerByte;
    }
    cpuUs += object.bytes * agent.parseUsPerByte;
    // Parts are parsed one after the other: the peak is the largest one's.
    transientBytes = Math.max(transientBytes, object.bytes * memory.parseBytesPerTextByte);
  });
  return { cpuUs, transientBytes, parsed };
}

function deliveryMode(
  name: DeliveryModeName,
  describe: string,
  objectsOf: (v: StateVersion) => readonly PartContent[],
  /** Bytes of an object's data: what is stored on the node and sent on the wire. */
  payload: (o: PartContent) => number,
  gzip: boolean,
): DeliveryMode {
  const mode: DeliveryMode = {
    name,
    describe,
    objectsOf,
    wireBytes: (o) => payload(o) + CONFIGMAP_OVERHEAD_BYTES,
    fileBytes: payload,
    check: (seen, now, costs) => checkCost(mode, seen, now, costs, gzip),
  };
  return mode;
}

/** The three modes (see {@link DeliveryMode}). */
export const DELIVERY_MODES: Readonly<Record<DeliveryModeName, DeliveryMode>> = Object.freeze({
  'one-file': deliveryMode('one-file', 'one ConfigMap holding the whole desired file', (v) => [v.whole], (o) => o.bytes, false),
  parts: deliveryMode('parts', 'one projected volume of several ConfigMaps (data), one part each', (v) => v.parts, (o) => o.bytes, false),
  // binaryData travels as raw bytes in protobuf (base64 only in JSON and YAML).
  'gzip-parts': deliveryMode('gzip-parts', 'the same parts gzipped (binaryData), decompressed by the agent with a bound', (v) => v.parts, (o) => o.gzipBytes, true),
});

/** Why `version` cannot be published in `mode` (an object past the 1 MiB limit), or undefined. */
export function deliveryProblem(mode: DeliveryMode, version: StateVersion): string | undefined {
  for (const object of mode.objectsOf(version)) {
    const size = mode.wireBytes(object);
    if (size > CONFIGMAP_LIMIT_BYTES) {
      return `${mode.name}: a ConfigMap of ${(size / 2 ** 20).toFixed(2)} MiB is past the API server's 1 MiB object limit`;
    }
  }
  return undefined;
}

/** The CPU (µs) of one reconcile that saved `savedMembers` and restored `restoreLines` in `restores` runs. */
export function reconcileCpuUs(costs: CostModel, savedMembers: number, restores: number, restoreLines: number): number {
  const { kernel, agent } = costs;
  return (
    agent.reconcileFixedUs +
    // `ipset save` and `ipset list -t`, then a restore per attempt.
    2 * kernel.ipsetRunUs +
    savedMembers * (kernel.saveUsPerMember + agent.planUsPerMember) +
    restores * kernel.ipsetRunUs +
    restoreLines * kernel.restoreUsPerLine
  );
}

/** The steady RSS of an agent holding `members` (bytes). */
export function steadyBytes(costs: CostModel, members: number): number {
  return costs.memory.baseBytes + members * costs.memory.bytesPerMember;
}
