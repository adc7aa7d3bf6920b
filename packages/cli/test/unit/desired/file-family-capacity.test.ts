/**
 * The desired file names a set's address family (`family: inet|inet6`) and its kernel
 * capacity (`maxelem`, `hashsize`, as ipset names them). Both used to be impossible to
 * say in a file: every set was `family inet` at the kernel's default sizes, so a
 * namespace with more than 65,536 pods could only fail.
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError, kernelName, planReconcile, renderRestore } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '../../../src/desired/file.js';
import { DEFAULT_CLI_OWNER } from '../../../src/defaults.js';

function problemsOf(text: string): string[] {
  try {
    parseDesiredText(text, { format: 'yaml' });
  } catch (error) {
    if (!isIpsetsError(error, 'INVALID_INPUT')) throw error;
    return ((error.details['problems'] ?? []) as { path: string; message: string }[]).map((p) => `${p.path}: ${p.message}`);
  }
  return [];
}

describe('family in the desired file', () => {
  it('family inet6 makes one inet6 kernel set that holds only IPv6 members', () => {
    const file = parseDesiredText('sets:\n  - { type: namespace, name: v6, family: inet6, members: ["FE80::0001", "2001:db8::/64"] }\n', { format: 'yaml' });
    const desired = desiredStateOf(file);
    expect(desired.sets).toHaveLength(1);
    expect(desired.sets[0]).toMatchObject({ spec: 'nethash family inet6', members: ['fe80::1', '2001:db8::/64'] });
  });

  it('a member of the other family is refused with its path, before any state is built', () => {
    const problems = problemsOf('sets:\n  - { type: namespace, name: v6, family: inet6, members: ["10.0.0.1"] }\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^sets\[0\]\.members\[0\]: /);
    const v4 = problemsOf('sets:\n  - { type: namespace, name: v4, family: inet, members: ["fe80::1"] }\n');
    expect(v4[0]).toMatch(/^sets\[0\]\.members\[0\]: /);
  });

  it('an unknown family, and a family on a list, are refused', () => {
    expect(problemsOf('sets:\n  - { type: namespace, name: x, family: ipv6 }\n')[0]).toContain('sets[0].family: unknown family "ipv6"; expected inet or inet6');
    expect(problemsOf('sets:\n  - { type: keyLabelOfNamespace, name: team, family: inet }\n')[0]).toContain('sets[0].family: a list (keyLabelOfNamespace) has no family');
  });
});

describe('maxelem and hashsize in the desired file', () => {
  it('reach the create line of the set, and of both families of a set without a family', () => {
    const file = parseDesiredText(
      'sets:\n  - { type: namespace, name: big, maxelem: 131072, hashsize: 2048, members: ["10.0.0.1", "fe80::1"] }\n  - { type: namespace, name: small, members: ["10.0.0.2"] }\n',
      { format: 'yaml' },
    );
    const desired = desiredStateOf(file);
    const big = desired.sets.filter((s) => s.label?.startsWith('ns-big'));
    expect(big).toHaveLength(2);
    for (const set of big) expect(set).toMatchObject({ maxelem: 131072, hashsize: 2048 });
    const small = desired.sets.find((s) => s.label === 'ns-small');
    expect(small?.maxelem).toBeUndefined();
    const text = renderRestore(planReconcile(desired, { sets: [], problems: [] }, []));
    expect(text).toContain(`-N ${kernelName('ns-big', { owner: DEFAULT_CLI_OWNER })} --exist nethash maxelem 131072 hashsize 2048\n`);
    expect(text).toContain(`-N ${kernelName('ns-small', { owner: DEFAULT_CLI_OWNER })} --exist nethash\n`);
  });

  it('values the kernel would refuse or round are refused with their path', () => {
    expect(problemsOf('sets:\n  - { type: namespace, name: x, maxelem: 0 }\n')[0]).toMatch(/^sets\[0\]\.maxelem: Invalid maxelem "0" for sets\[0\]; expected an integer from 1 to 4294967295/);
    expect(problemsOf('sets:\n  - { type: namespace, name: x, maxelem: 4294967296 }\n')[0]).toMatch(/^sets\[0\]\.maxelem: /);
    expect(problemsOf('sets:\n  - { type: namespace, name: x, maxelem: "1; -F" }\n')[0]).toMatch(/^sets\[0\]\.maxelem: /);
    expect(problemsOf('sets:\n  - { type: namespace, name: x, hashsize: 1000 }\n')[0]).toMatch(/^sets\[0\]\.hashsize: Invalid hashsize "1000" for sets\[0\]; expected a power of two/);
    expect(problemsOf('sets:\n  - { type: keyLabelOfNamespace, name: team, maxelem: 10 }\n')[0]).toContain('sets[0].maxelem: a list (keyLabelOfNamespace) has no maxelem');
  });
});
