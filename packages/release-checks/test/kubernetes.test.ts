/**
 * The Kubernetes manifests under deploy/kubernetes: every object validates against the
 * Kubernetes API schemas (kubernetes-models), and the DaemonSet keeps the safety
 * properties the operator's guide promises.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { ROOT, helpFlags, runCli } from './helpers/repo.js';

const DIR = `${ROOT}deploy/kubernetes/`;

interface Manifest {
  file: string;
  object: Record<string, unknown> & { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } };
}

const MODELS: Record<string, { validate(data: unknown): void }> = {
  'v1/ConfigMap': { validate: (data) => new ConfigMap(data as never).validate() },
  'v1/ServiceAccount': { validate: (data) => new ServiceAccount(data as never).validate() },
  'apps/v1/DaemonSet': { validate: (data) => new DaemonSet(data as never).validate() },
};

function manifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort()) {
    for (const doc of parseAllDocuments(readFileSync(DIR + file, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      out.push({ file, object: doc.toJSON() as Manifest['object'] });
    }
  }
  return out;
}

function daemonSet(): IDaemonSet {
  const found = manifests().filter((m) => m.object.kind === 'DaemonSet');
  expect(found).toHaveLength(1);
  return found[0]!.object as unknown as IDaemonSet;
}

function agentContainer(): IContainer {
  const containers = daemonSet().spec!.template.spec!.containers;
  expect(containers).toHaveLength(1);
  return containers[0]!;
}

/** `--flag value` / `--flag=value` pairs of an argv (positional arguments under ''). */
function flagValues(args: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (flag: string, value: string): void => {
    out.set(flag, [...(out.get(flag) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      add('', arg);
    } else if (arg.includes('=')) {
      add(arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1));
    } else if (i + 1 < args.length && !args[i + 1]!.startsWith('--')) {
      add(arg, args[++i]!);
    } else {
      add(arg, '');
    }
  }
  return out;
}

/** Seconds of a contract duration (`1500ms`, `30s`, `5m`, `2h`, `1m30s`, plain seconds). */
function seconds(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join('') !== text) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]!]!, 0);
}

/** Bytes of a Kubernetes memory quantity (`160Mi`, `1Gi`, `500M`). */
function bytes(quantity: string | number): number {
  const m = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity));
  if (!m) throw new Error(`not a memory quantity: ${JSON.stringify(quantity)}`);
  const mult: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };
  return Number(m[1]) * mult[m[2] ?? '']!;
}

describe('deploy/kubernetes validates against the Kubernetes API schemas', () => {
  it('every object of every manifest is a known kind that validates', () => {
    const all = manifests();
    expect(all.map((m) => `${m.file}:${m.object.kind}`)).toEqual([
      'configmap.yaml:ConfigMap',
      'daemonset.yaml:DaemonSet',
      'serviceaccount.yaml:ServiceAccount',
    ]);
    for (const { file, object } of all) {
      const model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(model, `${file}: no schema for ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => model!.validate(object), file).not.toThrow();
    }
  });

  it('the schema check is not vacuous: a DaemonSet with a string containerPort and no containers name is refused', () => {
    const broken = structuredClone(daemonSet()) as unknown as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    const container = broken.spec.template.spec.containers[0]!;
    (container.ports as Record<string, unknown>[])[0]!.containerPort = 'metrics';
    expect(() => MODELS['apps/v1/DaemonSet']!.validate(broken)).toThrow(/containerPort must be integer/);
    delete container.name;
    expect(() => MODELS['apps/v1/DaemonSet']!.validate(broken)).toThrow(/name/);
  });

  it('no manifest pins a namespace, and the kustomization lists exactly the manifests', () => {
    for (const { file, object } of manifests()) expect(object.metadata?.namespace, file).toBeUndefined();
    const kustomization = parseAllDocuments(readFileSync(`${DIR}kustomization.yaml`, 'utf8'))[0]!.toJSON() as {
      resources: string[];
      namespace?: string;
    };
    expect(kustomization.namespace).toBeUndefined();
    expect([...kustomization.resources].sort()).toEqual(
      readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort(),
    );
  });

  it('the example ConfigMap holds a desired file the CLI accepts', () => {
    const cm = manifests().find((m) => m.object.kind === 'ConfigMap')!.object as { data: Record<string, string> };
    const ds = daemonSet();
    const desired = ds.spec!.template.spec!.volumes!.find((v) => v.name === 'desired')!;
    expect(desired.configMap?.name).toBe((manifests().find((m) => m.object.kind === 'ConfigMap')!.object.metadata!.name));
    const file = flagValues(agentContainer().args!).get('')![0]!;
    const mount = agentContainer().volumeMounts!.find((v) => v.name === 'desired')!;
    expect(file.startsWith(`${mount.mountPath}/`)).toBe(true);
    const key = file.slice(mount.mountPath.length + 1);
    expect(Object.keys(cm.data)).toContain(key);
    const path = join(mkdtempSync(join(tmpdir(), 'ipsets-h5-configmap-')), key);
    writeFileSync(path, cm.data[key]!);
    // `plan` reads the file and touches no kernel: it exits 0 only for a valid desired state.
    const planned = runCli(['plan', path]);
    rmSync(dirname(path), { recursive: true, force: true });
    expect(planned.status, planned.stderr).toBe(0);
    // Every set of the example is created: one `-N` line per set.
    expect(planned.stdout.match(/^-N ipsets-/gm)).toHaveLength(
      (parseAllDocuments(cm.data[key]!)[0]!.toJSON() as { sets: unknown[] }).sets.length,
    );
  });
});


describe('the DaemonSet keeps the node safe', () => {
  it('runs in the host network as root with CAP_NET_ADMIN only, no privilege escalation, a read-only root', () => {
    const pod = daemonSet().spec!.template.spec!;
    expect(pod.hostNetwork).toBe(true);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.hostIPC ?? false).toBe(false);
    const sc = agentContainer().securityContext!;
    expect(sc.runAsUser).toBe(0);
    expect(sc.privileged ?? false).toBe(false);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(sc.readOnlyRootFilesystem).toBe(true);
    expect(sc.capabilities?.drop).toEqual(['ALL']);
    expect(sc.capabilities?.add).toEqual(['NET_ADMIN']);
  });

  it('the operator\'s guide says what a namespace must admit: Pod Security level privileged (hostNetwork, NET_ADMIN)', () => {
    const guide = readFileSync(`${ROOT}docs/operating.md`, 'utf8');
    const install = guide.slice(guide.indexOf('### Kubernetes'), guide.indexOf('### systemd'));
    expect(install).toContain('Pod Security level `privileged`');
    expect(install).toContain('kubectl label namespace kube-system pod-security.kubernetes.io/enforce=privileged');
    // What the guide says the DaemonSet needs is what it asks for.
    const pod = daemonSet().spec!.template.spec!;
    expect(pod.hostNetwork).toBe(true);
    expect(agentContainer().securityContext?.capabilities?.add).toEqual(['NET_ADMIN']);
    expect(install).toContain('`kubernetes.io/os: linux`');
  });

  it('runs on every Linux node: tolerates every taint, system-node-critical', () => {
    const pod = daemonSet().spec!.template.spec!;
    expect(pod.priorityClassName).toBe('system-node-critical');
    // One toleration with operator Exists and no key or effect matches every taint.
    expect(pod.tolerations).toContainEqual({ operator: 'Exists' });
    // Linux nodes only: on a cluster with Windows pools the toleration alone put agents on Windows nodes, never ready.
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(pod.affinity).toBeUndefined();
  });

  it('probes /livez and /readyz on the metrics port, and Prometheus is told where to scrape', () => {
    const c = agentContainer();
    const port = c.ports!.find((p) => p.name === 'metrics')!;
    const bind = flagValues(c.args!).get('--metrics-bind-address');
    expect(bind).toEqual([`$(POD_IP):${port.containerPort}`]);
    expect(c.env).toContainEqual({ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    if (c.startupProbe) expect(c.startupProbe.httpGet?.path).toBe('/livez');
    const annotations = daemonSet().spec!.template.metadata!.annotations!;
    expect(annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port.containerPort),
      'prometheus.io/path': '/metrics',
    });
  });

  it('gives the agent longer than its --grace to stop before SIGKILL', () => {
    const grace = flagValues(agentContainer().args!).get('--grace');
    // The contract's default --grace is 20s when the flag is absent.
    const agentGrace = seconds(grace?.[0] ?? '20s');
    const pod = daemonSet().spec!.template.spec!;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(agentGrace + 5);
  });

  it('rolls out without surge (one agent per node) and a bounded share of nodes at a time', () => {
    const strategy = daemonSet().spec!.updateStrategy!;
    expect(strategy.type).toBe('RollingUpdate');
    expect(String(strategy.rollingUpdate!.maxSurge)).toBe('0');
    const unavailable = String(strategy.rollingUpdate!.maxUnavailable);
    const percent = /^(\d+)%$/.exec(unavailable);
    expect(percent, `maxUnavailable ${unavailable}: expected a percentage`).not.toBeNull();
    expect(Number(percent![1])).toBeGreaterThanOrEqual(1);
    expect(Number(percent![1])).toBeLessThanOrEqual(10);
    expect(daemonSet().spec!.minReadySeconds).toBeGreaterThan(0);
  });

  it('mounts the desired file as a whole ConfigMap folder (no subPath, so the ..data swap is seen) and shares /run/ipsets with the node', () => {
    const c = agentContainer();
    const pod = daemonSet().spec!.template.spec!;
    for (const mount of c.volumeMounts!) expect(mount.subPath, mount.name).toBeUndefined();
    const desired = c.volumeMounts!.find((v) => v.name === 'desired')!;
    expect(desired.readOnly).toBe(true);
    const lockFile = flagValues(c.args!).get('--lock-file')![0]!;
    const lockMount = c.volumeMounts!.find((v) => lockFile.startsWith(`${v.mountPath}/`))!;
    expect(lockMount.mountPath).toBe('/run/ipsets');
    const lockVolume = pod.volumes!.find((v) => v.name === lockMount.name)!;
    expect(lockVolume.hostPath).toEqual({ path: '/run/ipsets', type: 'DirectoryOrCreate' });
    expect(lockFile).toBe('/run/ipsets/host.lock');
  });

  it('requests memory for a typical node and limits it above the measured 1M-member peak', () => {
    const r = agentContainer().resources!;
    expect(r.requests?.cpu).toBeDefined();
    // No CPU limit: throttling would stretch a restore that holds the node's lock.
    expect(r.limits?.cpu).toBeUndefined();
    // Measured peak RSS of `agent --once` (docs/operating.md): ~130 MiB at 100k members, ~450 MiB at 1M.
    expect(bytes(r.requests!.memory!)).toBeGreaterThanOrEqual(130 * 1024 ** 2);
    expect(bytes(r.limits!.memory!)).toBeGreaterThanOrEqual(1.5 * 450 * 1024 ** 2);
  });

  it('uses a pinned image tag and mounts no service-account token', () => {
    const c = agentContainer();
    expect(c.image).toMatch(/:[0-9]+\.[0-9]+\.[0-9]+$/);
    expect(c.imagePullPolicy).toBe('IfNotPresent');
    expect(daemonSet().spec!.template.spec!.automountServiceAccountToken).toBe(false);
  });
});

describe('the DaemonSet runs `ipsets agent` with flags the CLI has', () => {
  it('passes the file, --kernel linux, --metrics-bind-address, --lock-file, and only flags `ipsets agent --help` lists', () => {
    const help = runCli(['agent', '--help']);
    expect(help.status).toBe(0);
    const known = helpFlags(help.stdout);
    const args = agentContainer().args!;
    const flags = flagValues(args);
    const unknown = [...flags.keys()].filter((f) => f !== '' && !known.has(f));
    expect(unknown, `flags not in \`ipsets agent --help\`: ${unknown.join(', ')}`).toEqual([]);
    expect(flags.get('--kernel')).toEqual(['linux']);
    expect(flags.get('')).toEqual(['/etc/ipsets/desired.yaml']);
    expect(flags.has('--once')).toBe(false);
    // The image's entrypoint is `ipsets agent`: the manifest passes arguments only.
    expect(agentContainer().command).toBeUndefined();
  });
});


describe('deploy/kubernetes-parts: the desired state split across ConfigMaps in one projected volume', () => {
  const PARTS = `${ROOT}deploy/kubernetes-parts/`;
  type Op = { op: 'test' | 'replace'; path: string; value: unknown };
  type PartsConfigMap = { metadata: { name: string }; data?: Record<string, string>; binaryData?: Record<string, string> };

  function docs(file: string): unknown[] {
    return parseAllDocuments(readFileSync(PARTS + file, 'utf8')).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJSON() as unknown;
    });
  }

  /** The base DaemonSet with the overlay's JSON patch applied (test and replace, as kustomize does). */
  function patchedDaemonSet(): IDaemonSet {
    const ds = structuredClone(daemonSet()) as unknown as Record<string, unknown>;
    for (const op of docs('daemonset-patch.yaml')[0] as Op[]) {
      const keys = op.path.split('/').slice(1);
      let at: Record<string, unknown> = ds;
      for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
      const last = keys.at(-1)!;
      if (op.op === 'test') expect(at[last], `test ${op.path}`).toEqual(op.value);
      else at[last] = op.value;
    }
    return ds as unknown as IDaemonSet;
  }

  const configMaps = () => docs('configmaps.yaml') as PartsConfigMap[];

  it('the kustomization builds on the base, adds the ConfigMaps, patches the DaemonSet and drops the base ConfigMap', () => {
    const k = docs('kustomization.yaml')[0] as { resources: string[]; patches: { path?: string; patch?: string; target?: { kind: string; name: string } }[] };
    expect(k.resources).toEqual(['../kubernetes', 'configmaps.yaml']);
    expect(k.patches.find((p) => p.path === 'daemonset-patch.yaml')?.target).toEqual({ kind: 'DaemonSet', name: 'ipsets-agent' });
    const drop = k.patches.find((p) => p.patch !== undefined)!.patch!;
    const base = manifests().find((m) => m.object.kind === 'ConfigMap')!.object.metadata!.name;
    expect(parseAllDocuments(drop)[0]!.toJSON()).toEqual({ $patch: 'delete', apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: base } });
    for (const cm of configMaps()) expect(() => MODELS['v1/ConfigMap']!.validate(cm), cm.metadata.name).not.toThrow();
    expect(() => MODELS['apps/v1/DaemonSet']!.validate(patchedDaemonSet())).not.toThrow();
  });

  it.skipIf(spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status !== 0)('kubectl kustomize builds the overlay into the base objects, the ConfigMaps and the patched DaemonSet (the JSON patch checked above)', () => {
    const built = spawnSync('kubectl', ['kustomize', PARTS], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const objects = parseAllDocuments(built.stdout).map((d) => d.toJSON() as { kind: string; metadata: { name: string } });
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      ['ServiceAccount/ipsets-agent', 'DaemonSet/ipsets-agent', ...configMaps().map((cm) => `ConfigMap/${cm.metadata.name}`)].sort(),
    );
    expect(objects.find((o) => o.kind === 'DaemonSet')).toEqual(patchedDaemonSet());
  });

  it('the patched DaemonSet reads the mounted folder, which projects exactly the overlay\'s ConfigMaps (unique keys, each under 1 MiB)', () => {
    const ds = patchedDaemonSet();
    const container = ds.spec!.template.spec!.containers[0]!;
    const mount = container.volumeMounts!.find((v) => v.name === 'desired')!;
    expect(flagValues(container.args!).get('')).toEqual([mount.mountPath]);
    const volume = ds.spec!.template.spec!.volumes!.find((v) => v.name === 'desired')!;
    expect(volume.projected!.sources!.map((s) => s.configMap!.name)).toEqual(configMaps().map((cm) => cm.metadata.name));
    const keys = configMaps().flatMap((cm) => [...Object.keys(cm.data ?? {}), ...Object.keys(cm.binaryData ?? {})]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.some((k) => k.endsWith('.gz'))).toBe(true);
    for (const cm of configMaps()) expect(JSON.stringify(cm).length, cm.metadata.name).toBeLessThan(1024 * 1024);
  });

  it('the projected folder, laid out as the kubelet does, is a desired state the CLI accepts; the gzip part holds what its comment shows', () => {
    const root = mkdtempSync(join(tmpdir(), 'ipsets-parts-deploy-'));
    try {
      const stamp = '..2026_12_02_00_00_00.000000001';
      mkdirSync(join(root, stamp));
      let sets = 0;
      for (const cm of configMaps()) {
        for (const [key, text] of Object.entries(cm.data ?? {})) {
          writeFileSync(join(root, stamp, key), text);
          sets += (parseAllDocuments(text)[0]!.toJSON() as { sets: unknown[] }).sets.length;
        }
        for (const [key, b64] of Object.entries(cm.binaryData ?? {})) {
          const bytes = Buffer.from(b64, 'base64');
          writeFileSync(join(root, stamp, key), bytes);
          const text = gunzipSync(bytes).toString('utf8');
          sets += (parseAllDocuments(text)[0]!.toJSON() as { sets: unknown[] }).sets.length;
          // The comment above the ConfigMap shows the decompressed part, line for line.
          const source = readFileSync(`${PARTS}configmaps.yaml`, 'utf8');
          const shown = [...source.matchAll(/^#   (.*)$/gm)].map((m) => m[1]).join('\n');
          expect(`${shown}\n`).toBe(text);
        }
      }
      symlinkSync(stamp, join(root, '..data'));
      for (const name of readdirSync(join(root, stamp))) symlinkSync(join('..data', name), join(root, name));
      const planned = runCli(['plan', root]);
      expect(planned.status, planned.stderr).toBe(0);
      expect(planned.stdout.match(/^-N ipsets-/gm)).toHaveLength(sets);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
