#!/usr/bin/env node
// Writes examples/node.json: the desired state of a node-sized cluster as one NPM
// node sees it (every pod of every namespace): namespaces with labels, thousands of
// pods with app/tier/version labels, named ports, nested label lists, and network
// policies with CIDR blocks and except blocks (nomatch).
//
// Deterministic (seeded PRNG): running it again gives the same bytes.
//   node examples/generate-node.mjs [--pods 3000] [--out examples/node.json]
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const targetPods = Number(opt('pods', 3000));
const out = opt('out', join(dirname(fileURLToPath(import.meta.url)), 'node.json'));

// mulberry32: small, seeded, good enough for fixtures.
let seed = 20240611;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const between = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const teams = ['retail', 'payments', 'search', 'identity', 'data', 'platform', 'media', 'ads'];
const envs = ['prod', 'staging', 'dev'];
const words = ['cart', 'checkout', 'catalog', 'ledger', 'auth', 'profile', 'index', 'query', 'ingest',
  'stream', 'thumbs', 'encoder', 'bidder', 'pricing', 'gateway', 'cache', 'worker', 'notifier', 'report', 'api'];
const tiers = ['frontend', 'backend', 'db'];

const sets = new Map(); // key type/name → { type, name, members: [] }
const set = (type, name) => {
  const key = `${type}/${name}`;
  let s = sets.get(key);
  if (!s) sets.set(key, (s = { type, name, members: [] }));
  return s;
};
const ref = (type, name) => ({ type, name });

let podIndex = 0;
const nextIp = () => {
  const n = podIndex++ + 2;
  return `10.244.${n >> 8}.${n & 255}`;
};

const namespaces = ['default', 'kube-system'];
for (let i = 0; namespaces.length < 42; i++) namespaces.push(`${teams[i % teams.length]}-${envs[i % envs.length]}-${Math.floor(i / teams.length)}`);

const apps = []; // { ns, app, ips }
for (const ns of namespaces) {
  const team = ns === 'default' || ns === 'kube-system' ? 'platform' : ns.split('-')[0];
  const env = ns === 'default' || ns === 'kube-system' ? 'prod' : ns.split('-')[1];
  // Namespace label lists (members are namespace sets).
  set('keyLabelOfNamespace', 'team').members.push(ref('namespace', ns));
  set('keyValueLabelOfNamespace', `team:${team}`).members.push(ref('namespace', ns));
  set('keyLabelOfNamespace', 'env').members.push(ref('namespace', ns));
  set('keyValueLabelOfNamespace', `env:${env}`).members.push(ref('namespace', ns));
  set('keyValueLabelOfNamespace', `kubernetes.io/metadata.name:${ns}`).members.push(ref('namespace', ns));
  set('namespace', ns);
  const deployments = between(3, 8);
  const used = new Set();
  for (let d = 0; d < deployments; d++) {
    let app = pick(words);
    while (used.has(app)) app = `${pick(words)}-${between(2, 9)}`;
    used.add(app);
    const tier = pick(tiers);
    const version = pick(['v1', 'v2']);
    const ips = [];
    const replicas = between(2, Math.max(3, Math.round((targetPods / namespaces.length / deployments) * 2 - 2)));
    for (let r = 0; r < replicas && podIndex < targetPods; r++) {
      const ip = nextIp();
      ips.push(ip);
      set('namespace', ns).members.push(ip);
      set('keyLabelOfPod', 'app').members.push(ip);
      set('keyValueLabelOfPod', `app:${app}`).members.push(ip);
      set('keyLabelOfPod', 'tier').members.push(ip);
      set('keyValueLabelOfPod', `tier:${tier}`).members.push(ip);
      set('keyValueLabelOfPod', `version:${version}`).members.push(ip);
      if (tier !== 'db') set('namedPorts', 'http').members.push(`${ip},tcp:8080`);
      if (rand() < 0.5) set('namedPorts', 'metrics').members.push(`${ip},tcp:9090`);
      if (tier === 'backend' && rand() < 0.3) set('namedPorts', 'grpc').members.push(`${ip},tcp:50051`);
      if (tier === 'db') set('namedPorts', 'dns-udp').members.push(`${ip},udp:5353`);
    }
    apps.push({ ns, app, tier, ips });
  }
}

// Nested label lists (`app in (a, b)`): pairs of pod-label sets.
for (let i = 0; i < 12; i++) {
  const a = pick(apps).app;
  const b = pick(apps).app;
  if (a === b) continue;
  set('nestedLabelOfPod', `app:${a}:${b}`).members.push(ref('keyValueLabelOfPod', `app:${a}`), ref('keyValueLabelOfPod', `app:${b}`));
}

// Network policies: egress/ingress CIDR blocks with except blocks.
for (let p = 0; p < 30; p++) {
  const ns = pick(namespaces);
  const dir = p % 2 === 0 ? 'out' : 'in';
  const s = set('cidrBlocks', `policy-${p}-in-ns-${ns}-0${dir}`);
  const a = between(1, 223);
  s.members.push(`${a}.0.0.0/8`);
  s.members.push(`${a}.${between(0, 255)}.0.0/16 nomatch`);
  if (rand() < 0.5) s.members.push(`${between(1, 223)}.${between(0, 255)}.${between(0, 255)}.0/24`);
  if (rand() < 0.3) s.members.push(`${between(1, 223)}.${between(0, 255)}.${between(0, 255)}.${between(1, 254)}`);
}

// Dedupe members that a random pick repeated.
const doc = {
  scheme: 'sha256-base36',
  sets: [...sets.values()].map((s) => {
    const seen = new Set();
    const members = s.members.filter((m) => {
      const k = typeof m === 'string' ? m : `${m.type}/${m.name}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return { type: s.type, name: s.name, members };
  }),
};

// Hash sets first, then lists; one member per line so diffs of the file stay readable.
const order = ['namespace', 'keyLabelOfPod', 'keyValueLabelOfPod', 'namedPorts', 'cidrBlocks',
  'keyLabelOfNamespace', 'keyValueLabelOfNamespace', 'nestedLabelOfPod'];
doc.sets.sort((x, y) => order.indexOf(x.type) - order.indexOf(y.type));
const j = (v) => JSON.stringify(v).replace(/":/g, '": ').replace(/,"/g, ', "');
const blocks = doc.sets.map((s) =>
  s.members.length === 0
    ? `  {"type": ${j(s.type)}, "name": ${j(s.name)}, "members": []}`
    : `  {"type": ${j(s.type)}, "name": ${j(s.name)}, "members": [\n${s.members.map((m) => `    ${j(m)}`).join(',\n')}\n  ]}`,
);
const text = `{\n "scheme": ${j(doc.scheme)},\n "sets": [\n${blocks.join(',\n')}\n ]\n}\n`;
writeFileSync(out, text);
const members = doc.sets.reduce((n, s) => n + s.members.length, 0);
console.error(`wrote ${out}: ${doc.sets.length} sets, ${podIndex} pods, ${members} members, ${text.length} bytes`);
