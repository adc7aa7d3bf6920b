/**
 * The image's build steps (deploy/image/build-tree.sh) make a production tree from
 * which `ipsets agent` converges a real kernel: the tree is built into a temp folder,
 * copied elsewhere (as the image's COPY does), and the agent started from the copy
 * against a network namespace this test creates (never the host's sets).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSave } from '@ipsets/core';
import { createTestNamespace } from '@ipsets/exec-linux/testing';
import type { TestNamespace } from '@ipsets/exec-linux/testing';
import { describeKernel } from './helpers/kernel.js';
import { ROOT } from './helpers/repo.js';

const SCRIPT = `${ROOT}deploy/image/build-tree.sh`;
const work = mkdtempSync(join(tmpdir(), 'ipsets-h5-tree-'));
// The image builds the tree in one stage and copies it into another.
const built = join(work, 'built');
const tree = join(work, 'opt-ipsets');
let buildLog = '';

beforeAll(() => {
  // The test run has installed and built the workspace already.
  const result = spawnSync('bash', [SCRIPT, built], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, IPSETS_SKIP_INSTALL: '1' },
    timeout: 540_000,
  });
  buildLog = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0) throw new Error(`build-tree.sh exited ${String(result.status)}:\n${buildLog}`);
  cpSync(built, tree, { recursive: true, verbatimSymlinks: true });
  rmSync(built, { recursive: true, force: true });
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function walk(dir: string, visit: (path: string) => void): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    visit(path);
    if (lstatSync(path).isDirectory()) walk(path, visit);
  }
}

function sizeOf(dir: string): number {
  let total = 0;
  walk(dir, (path) => {
    const stat = lstatSync(path);
    if (stat.isFile()) total += stat.size;
  });
  return total;
}

/** The tree's `ipsets`, run with `args`. */
function treeCli(args: readonly string[], input?: string): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(tree, 'dist/bin.js'), ...args], { encoding: 'utf8', input, cwd: work });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe('deploy/image/build-tree.sh', () => {
  it('refuses a folder that is not empty, without touching it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipsets-h5-busy-'));
    writeFileSync(join(dir, 'keep'), 'x');
    const result = spawnSync('bash', [SCRIPT, dir], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is not empty');
    expect(readdirSync(dir)).toEqual(['keep']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds a self-contained tree: every link points inside it, so it runs after being copied', () => {
    expect(buildLog).toMatch(/production tree of ipsets \d+\.\d+\.\d+/);
    const outside: string[] = [];
    walk(tree, (path) => {
      if (!lstatSync(path).isSymbolicLink()) return;
      const target = resolve(dirname(path), readlinkSync(path));
      if (!target.startsWith(`${tree}/`) || !existsSync(target)) outside.push(`${path} -> ${readlinkSync(path)}`);
    });
    expect(outside).toEqual([]);
    const version = JSON.parse(readFileSync(`${ROOT}packages/cli/package.json`, 'utf8')).version as string;
    // `--version`: the command's version, then the ipset it finds.
    expect(treeCli(['--version']).stdout.split('\n')[0]).toBe(`ipsets ${version}`);
    // The image links /usr/local/bin/ipsets (and a host install /usr/bin/ipsets) to dist/bin.js and runs it directly.
    const direct = spawnSync(join(tree, 'dist/bin.js'), ['--version'], { encoding: 'utf8' });
    expect(direct.status, direct.stderr).toBe(0);
    expect(direct.stdout.split('\n')[0]).toBe(`ipsets ${version}`);
  });

  it('holds the runtime dependencies and no sources, tests or dev tools of the CLI', () => {
    const cli = JSON.parse(readFileSync(`${ROOT}packages/cli/package.json`, 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const top = readdirSync(join(tree, 'node_modules')).flatMap((n) =>
      n.startsWith('@') ? readdirSync(join(tree, 'node_modules', n)).map((m) => `${n}/${m}`) : n.startsWith('.') ? [] : [n],
    );
    expect(top.sort()).toEqual(Object.keys(cli.dependencies).sort());
    expect(existsSync(join(tree, 'src'))).toBe(false);
    expect(existsSync(join(tree, 'test'))).toBe(false);
    for (const dev of ['typescript', 'tsdown', 'turbo', '@changesets/cli']) {
      expect(existsSync(join(tree, 'node_modules/.pnpm', dev.replace('/', '+')))).toBe(false);
    }
    const store = readdirSync(join(tree, 'node_modules/.pnpm'));
    // The fake kernel the CLI runs (`--kernel fake`, `demo`) needs no test tooling.
    expect(store.filter((p) => /^(fast-check|vitest|@vitest\+)/.test(p))).toEqual([]);
    // Recorded for the operator's guide: what the tree costs on disk and what it carries.
    const mib = sizeOf(tree) / 1024 ** 2;
    const packages = store.length - 2;
    console.info(
      `[production tree] ${mib.toFixed(1)} MiB in ${packages} packages; ` +
        `fast-check ${store.some((p) => p.startsWith('fast-check@')) ? 'present' : 'absent'}; ` +
        `vitest ${store.some((p) => p.startsWith('vitest@')) ? 'present' : 'absent'}`,
    );
    // The guide says what this measures (it had drifted): the package count exactly, the size within a fifth.
    const guide = /the tree is about\s+([\d.]+) MiB in (\d+) packages/.exec(readFileSync(`${ROOT}docs/operating.md`, 'utf8'));
    expect(guide, 'docs/operating.md names the tree\'s size and package count').not.toBeNull();
    expect(Number(guide![2]), `the guide says ${guide![2]} packages; the tree has ${packages}`).toBe(packages);
    expect(Math.abs(Number(guide![1]) - mib) / mib, `the guide says ${guide![1]} MiB; the tree is ${mib.toFixed(1)} MiB`).toBeLessThan(0.2);
  });
});

/** The image's Node: the toolchain's exact release, the one the whole suite runs on. */
const NODE_VERSIONS = JSON.parse(readFileSync(`${ROOT}scripts/node-versions.json`, 'utf8')) as { toolchain: string; lines: Record<string, string> };
const IMAGE_NODE = NODE_VERSIONS.lines[NODE_VERSIONS.toolchain]!;

describe('deploy/image/Containerfile', () => {
  const text = readFileSync(`${ROOT}deploy/image/Containerfile`, 'utf8');
  const instructions = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages = instructions.join('\n').split(/^(?=FROM )/m).map((s) => s.trim().split('\n'));

  it(`builds and runs on Node ${IMAGE_NODE} by exact tag, the release the whole suite runs on`, () => {
    const tags = [...text.matchAll(/^FROM \S*node:(\S+)/gm)].map((m) => m[1]);
    expect(tags).toEqual([`${IMAGE_NODE}-bookworm`, `${IMAGE_NODE}-bookworm-slim`]);
    expect(text).toContain(`Node ${IMAGE_NODE} by exact tag`);
  });

  it('is a thin wrapper: the build stage installs pnpm 12.4.2 and runs build-tree.sh, nothing else', () => {
    expect(stages).toHaveLength(2);
    const build = stages[0]!;
    expect(build[0]).toBe(`FROM docker.io/library/node:${IMAGE_NODE}-bookworm AS build`);
    expect(build.filter((l) => l.startsWith('RUN '))).toEqual(['RUN npm install -g pnpm@12.4.2', 'RUN deploy/image/build-tree.sh /opt/ipsets']);
  });

  it('runs `ipsets agent` on Debian slim with Debian\'s ipset, without a shell', () => {
    const runtime = stages[1]!;
    expect(runtime[0]).toBe(`FROM docker.io/library/node:${IMAGE_NODE}-bookworm-slim AS runtime`);
    expect(runtime.find((l) => l.startsWith('RUN apt-get'))).toMatch(/apt-get install -y --no-install-recommends ipset/);
    expect(runtime).toContain('COPY --from=build /opt/ipsets /opt/ipsets');
    const entrypoint = runtime.find((l) => l.startsWith('ENTRYPOINT '))!;
    // Exec form (a JSON array): the agent is PID 1 and gets the kubelet's SIGTERM itself.
    expect(JSON.parse(entrypoint.slice('ENTRYPOINT '.length))).toEqual(['/usr/local/bin/ipsets', 'agent']);
    expect(runtime).toContain('RUN ln -s /opt/ipsets/dist/bin.js /usr/local/bin/ipsets && ipsets --version');
  });
});

describeKernel('the production tree converges a network namespace', () => {
  let ns: TestNamespace;
  let dir: string;

  beforeAll(async () => {
    ns = await createTestNamespace('h5-image');
    dir = mkdtempSync(join(tmpdir(), 'ipsets-h5-agent-'));
    cpSync(`${ROOT}examples/small.yaml`, join(dir, 'desired.yaml'));
  });
  afterAll(async () => {
    await ns?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Owned sets of the namespace's kernel: name → sorted members. */
  async function kernelSets(): Promise<Map<string, string[]>> {
    const saved = await ns.run(['ipset', 'save']);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const out = new Map<string, string[]>();
    for (const set of parseSave(saved.stdout).sets) {
      if (set.name.startsWith('ipsets-')) out.set(set.name, [...set.members].sort());
    }
    return out;
  }

  /** What the file asks for, from the tree's own `plan` (restore text for an empty kernel). */
  function plannedSets(file: string): Map<string, string[]> {
    const plan = treeCli(['plan', file]);
    expect(plan.status, plan.stderr).toBe(0);
    const out = new Map<string, string[]>();
    for (const line of plan.stdout.split('\n')) {
      const create = /^-N (\S+) /.exec(line);
      if (create) out.set(create[1]!, out.get(create[1]!) ?? []);
      const add = /^-A (\S+) (.+)$/.exec(line);
      if (add) out.set(add[1]!, [...(out.get(add[1]!) ?? []), add[2]!]);
    }
    for (const members of out.values()) members.sort();
    expect(out.size).toBeGreaterThan(0);
    return out;
  }

  async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const equal = (a: Map<string, string[]>, b: Map<string, string[]>): boolean =>
    JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

  it('`ipsets agent --once --kernel linux --netns` from the tree exits 0 and the kernel equals the file', async () => {
    const file = join(dir, 'desired.yaml');
    const result = treeCli(['agent', file, '--once', '--kernel', 'linux', '--netns', ns.name]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(await kernelSets()).toEqual(plannedSets(file));
  });

  it('a running agent from the tree applies a changed file, then stops cleanly on SIGTERM (exit 0)', async () => {
    const file = join(dir, 'desired.yaml');
    const agent = spawn(process.execPath, [join(tree, 'dist/bin.js'), 'agent', file, '--kernel', 'linux', '--netns', ns.name], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => agent.on('exit', (code) => r(code)));
    try {
      // Drop the CIDR-block set and add a pod IP to a namespace set.
      const text = readFileSync(`${ROOT}examples/small.yaml`, 'utf8')
        .replace('members: [10.244.1.10, 10.244.1.11, 10.244.1.12]', 'members: [10.244.1.10, 10.244.1.11, 10.244.1.12, 10.244.1.13]')
        .replace(/  - type: cidrBlocks\n    name: allow-egress-in-ns-shop-0out\n    members: \[[^\]]*\]\n/, '');
      expect(text).toContain('10.244.1.13');
      expect(text).not.toContain('type: cidrBlocks');
      const changed = join(dir, 'changed.yaml');
      writeFileSync(changed, text);
      const want = plannedSets(changed);
      // Rename over the file, as the kubelet's ..data swap and most editors do.
      const staged = join(dir, '.desired.yaml.tmp');
      writeFileSync(staged, text);
      await until('the first apply', async () => equal(await kernelSets(), plannedSets(file)) || /converged/.test(output));
      renameSync(staged, file);
      await until('the changed file to reach the kernel', async () => equal(await kernelSets(), want));
      agent.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } finally {
      if (agent.exitCode === null) agent.kill('SIGKILL');
    }
  });

  it('serves /livez, /readyz and /metrics from the tree on --metrics-bind-address', async () => {
    const port = await freePort();
    const file = join(dir, 'desired.yaml');
    const agent = spawn(
      process.execPath,
      [join(tree, 'dist/bin.js'), 'agent', file, '--kernel', 'linux', '--netns', ns.name, '--metrics-bind-address', `127.0.0.1:${port}`],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => agent.on('exit', (code) => r(code)));
    try {
      const get = async (path: string): Promise<{ status: number; body: string }> => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: response.status, body: await response.text() };
      };
      await until(
        '/readyz to answer 200',
        async () => {
          if (agent.exitCode !== null) throw new Error(`the agent exited ${agent.exitCode}:\n${output}`);
          return (await get('/readyz').catch(() => ({ status: 0 }))).status === 200;
        },
      );
      expect((await get('/livez')).status).toBe(200);
      const metrics = await get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^ipsets_sets \d+$/m);
      expect(metrics.body).toMatch(/^ipsets_consecutive_failures 0$/m);
      agent.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } finally {
      if (agent.exitCode === null) agent.kill('SIGKILL');
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}
