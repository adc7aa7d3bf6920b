/**
 * The port contract of @ipsets/testing, run against the Linux port and the real kernel
 * inside a throwaway network namespace. References from outside ipset are iptables
 * `-m set --match-set` rules inside that namespace.
 */
import { describePortContract } from '@ipsets/testing/vitest';
import { createLinuxPort } from '../../src/linux-port.js';
import { createTestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';

describeKernel('Linux port in a network namespace', () => {
  describePortContract('linux (real kernel, netns)', async () => {
    const ns = await createTestNamespace('contract');
    const rule = (action: '-A' | '-D', set: string) => ['iptables', action, 'INPUT', '-m', 'set', '--match-set', set, 'src', '-j', 'ACCEPT'];
    const iptables = async (action: '-A' | '-D', set: string): Promise<void> => {
      const result = await ns.run(rule(action, set));
      if (result.exitCode !== 0) throw new Error(`iptables ${action} for ${set} failed: ${result.stderr}`);
    };
    return {
      port: createLinuxPort({ netns: ns.name }),
      cleanup: () => ns.dispose(),
      reference: (set) => iptables('-A', set),
      unreference: (set) => iptables('-D', set),
    };
  });
});
