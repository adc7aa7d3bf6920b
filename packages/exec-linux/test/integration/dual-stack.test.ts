/**
 * Dual stack against the real kernel, inside a throwaway network namespace: a manager
 * fed the IPv4 and IPv6 addresses of the same pods, named ports of both families and
 * CIDR sets with nomatch entries applies through the Linux port; the kernel then holds
 * exactly the desired state, family included, and a reconcile plan against what the
 * kernel saves is empty (the canonical IPv6 forms equal what `ipset save` prints).
 * Lists that hold a logical set hold both of its kernel sets.
 * It also pins what the kernel allows across families (measured on ipset 7.17): a
 * list:set holds sets of both families, iptables and ip6tables can both match on
 * such a list, and ip6tables refuses a family inet set.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  applyIPSets,
  familyOfSpec,
  IPSetManager,
  kernelTypeOfSpec,
  parseListHeaders,
  parseSave,
  planReconcile,
  prefixedName,
} from '@ipsets/core';
import type { DesiredState, IpsetPort, SetMetadata } from '@ipsets/core';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { normaliseSave } from '../helpers/save.js';

const OWNER = 'azure-npm-';
const nsA: SetMetadata = { name: 'team-a', type: 'namespace' };
const nsB: SetMetadata = { name: 'team-b', type: 'namespace' };
const app: SetMetadata = { name: 'app:web', type: 'keyValueLabelOfPod' };
const ports: SetMetadata = { name: 'serve', type: 'namedPorts' };
const cidr: SetMetadata = { name: 'policy-1-in-0', type: 'cidrBlocks' };
const nsList: SetMetadata = { name: 'env', type: 'keyLabelOfNamespace' };
const nested: SetMetadata = { name: 'app:web|tier', type: 'nestedLabelOfPod' };
const v6 = (meta: SetMetadata): SetMetadata => ({ ...meta, family: 'inet6' });

interface KernelSet {
  type: string;
  family: string | undefined;
  members: string[];
}

/** The owned sets of a save: type, family and members (hash members sorted). */
function ownedWithFamily(saveText: string): Record<string, KernelSet> {
  const out: Record<string, KernelSet> = {};
  for (const s of normaliseSave(saveText)) {
    if (!s.name.startsWith(OWNER)) continue;
    out[s.name] = { type: s.type, family: /\bfamily (\S+)/.exec(s.options)?.[1], members: s.members };
  }
  return out;
}

function desiredWithFamily(desired: DesiredState): Record<string, KernelSet> {
  const out: Record<string, KernelSet> = {};
  for (const s of desired.sets) {
    const type = kernelTypeOfSpec(s.spec);
    out[s.name] = { type, family: familyOfSpec(s.spec), members: type === 'list:set' ? [...s.members] : [...s.members].sort() };
  }
  return out;
}

describeKernel('dual stack: IPv4 and IPv6 sets through the Linux port (real kernel, in a namespace)', () => {
  let ns: TestNamespace;
  let port: IpsetPort;

  async function kernelSave(): Promise<string> {
    const saved = await ns.run(['ipset', 'save']);
    expect(saved.exitCode).toBe(0);
    return saved.stdout;
  }

  beforeAll(async () => {
    ns = await createTestNamespace('h7-dual');
    port = createLinuxPort({ netns: ns.name });
  });
  afterAll(async () => {
    await ns?.dispose();
  });
  beforeEach(async () => {
    await ns.run(['iptables', '-F']);
    await ns.run(['ip6tables', '-F']);
    await ns.run(['ipset', 'flush']);
    await ns.run(['ipset', 'destroy']);
  });

  function dualStack(): IPSetManager {
    const manager = new IPSetManager();
    // A list made before any IPv6 member exists still ends up holding the inet6 siblings.
    manager.addToLists([nested], [app]);
    // Each pod has an IPv4 and an IPv6 address; the IPv6 ones in non-canonical spellings.
    for (const [pod, ip4, ip6] of [
      ['pod-1', '10.0.0.1', 'FD00::1'],
      ['pod-2', '10.0.0.2', 'fd00:0:0:0:0:0:0:2'],
    ] as const) {
      manager.addToSets([nsA, app], ip4, pod);
      manager.addToSets([nsA, app], ip6, pod);
    }
    manager.addToSets([nsB], '10.1.0.7', 'pod-3');
    manager.addToSets([nsB], '[fd00:1::7]', 'pod-3');
    manager.addToSets([ports], '10.0.0.1,tcp:8080', 'pod-1');
    manager.addToSets([ports], 'fd00::1,8080', 'pod-1');
    manager.addToSets([ports], 'FD00::2,udp:53', 'pod-2');
    manager.addToSets([cidr], '192.168.0.0/16', '');
    manager.addToSets([cidr], '192.168.4.0/24 nomatch', '');
    manager.addToSets([cidr], '2001:db8::/32', '');
    manager.addToSets([cidr], '2001:DB8:4::/48 nomatch', '');
    manager.addToSets([cidr], '2001:db8:ffff::1/64', '');
    manager.addToLists([nsList], [nsA, nsB]);
    expect(manager.getIPSet(prefixedName(nsList))!.members).toEqual([nsA, v6(nsA), nsB, v6(nsB)].map(prefixedName));
    expect(manager.getIPSet(prefixedName(nested))!.members).toEqual([app, v6(app)].map(prefixedName));
    return manager;
  }

  it('the kernel holds exactly the desired state, family included, and a second plan is empty', async () => {
    const manager = dualStack();
    const report = await applyIPSets(manager, port);
    expect(report.skipped).toEqual([]);
    expect(report.converged).toBe(true);
    const desired = manager.desiredState();
    const saved = await kernelSave();
    expect(ownedWithFamily(saved)).toEqual(desiredWithFamily(desired));

    const ns6 = manager.getIPSet(prefixedName(v6(nsA)))!;
    expect(ns6.members).toEqual(['fd00::1', 'fd00::2']);
    expect(manager.getIPSet(prefixedName(nsA))!.members).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(ownedWithFamily(saved)[ns6.kernelName]).toEqual({ type: 'hash:net', family: 'inet6', members: ['fd00::1', 'fd00::2'] });
    const cidr6 = manager.getIPSet(prefixedName(v6(cidr)))!.kernelName;
    expect(ownedWithFamily(saved)[cidr6]!.members).toEqual(['2001:db8:4::/48 nomatch', '2001:db8::/32', '2001:db8:ffff::/64']);

    // A second apply: nothing is dirty, and a full reconcile against the kernel plans nothing.
    expect((await applyIPSets(manager, port)).linesTotal).toBe(0);
    const headers = parseListHeaders((await ns.run(['ipset', 'list', '-t'])).stdout);
    expect(planReconcile(desired, parseSave(saved), headers).lines).toEqual([]);
  });

  it('pins the cross-family rules of the kernel: a list:set holds both families, ip6tables refuses an inet set', async () => {
    const manager = dualStack();
    expect((await applyIPSets(manager, port)).converged).toBe(true);
    const list = manager.getIPSet(prefixedName(nsList))!.kernelName;
    const inet = manager.getIPSet(prefixedName(nsA))!.kernelName;
    const inet6 = manager.getIPSet(prefixedName(v6(nsA)))!.kernelName;
    const listed = (await ns.run(['ipset', 'list', list])).stdout;
    expect(listed).toContain(`\n${inet}\n`);
    expect(listed).toContain(`\n${inet6}\n`);
    expect(await ns.run(['ipset', 'test', inet6, 'fd00::2'])).toMatchObject({ exitCode: 0 });
    expect(await ns.run(['ipset', 'test', inet, 'fd00::2'])).toMatchObject({ exitCode: 1 });
    for (const tool of ['iptables', 'ip6tables']) {
      expect(await ns.run([tool, '-A', 'INPUT', '-m', 'set', '--match-set', list, 'src', '-j', 'ACCEPT'])).toMatchObject({ exitCode: 0 });
    }
    const refused = await ns.run(['ip6tables', '-A', 'INPUT', '-m', 'set', '--match-set', inet, 'src', '-j', 'ACCEPT']);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/family of set .* is IPv4, which is not applicable/);
  });
});
