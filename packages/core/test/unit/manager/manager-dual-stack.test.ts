/**
 * Dual stack in the manager: a family-less hash set routes each member to the kernel
 * set of the member's family (the inet6 sibling has a kernel name of its own), an
 * explicit family refuses the other family's members, lists hold sets of both
 * families (the kernel's list:set accepts them, measured on ipset 7.17).
 */
import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { kernelName } from '../../../src/model/naming.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { prefixedName } from '../../../src/model/set-types.js';
import type { SetMetadata } from '../../../src/types.js';
import { CIDR, K, KEY_NS, NAMED_PORT, NESTED, NS, applyAll, manager, text } from '../../helpers/manager-fixtures.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const v6 = (meta: SetMetadata): SetMetadata => ({ ...meta, family: 'inet6' });
const KEY_NS_MEMBER: SetMetadata = { name: 'app:both', type: 'keyValueLabelOfPod' };

describe('IPSetManager dual stack', () => {
  it('routes a pod\'s IPv4 and IPv6 addresses of the same logical sets to one kernel set per family', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([NS], 'FE80::0001', 'pod-a');
    m.addToSets([NAMED_PORT], '10.0.0.1,tcp:80', 'pod-a');
    m.addToSets([NAMED_PORT], '[fe80::1],80', 'pod-a');
    m.addToSets([CIDR], '2001:db8::/32 nomatch', 'netpol');
    const ns4 = m.getIPSet(prefixedName(NS))!;
    const ns6 = m.getIPSet(prefixedName(v6(NS)))!;
    expect(ns4.kernelName).toBe(K.NS);
    expect(ns6.kernelName).toBe(kernelName(`ns-test-ns-set inet6`));
    expect(ns6.kernelName).not.toBe(ns4.kernelName);
    expect(ns4.members).toEqual(['10.0.0.1']);
    expect(ns6.members).toEqual(['fe80::1']);
    expect(ns6.createSpec).toBe('nethash family inet6');
    expect(m.getIPSet(prefixedName(v6(NAMED_PORT)))!.members).toEqual(['fe80::1,tcp:80']);
    expect(m.getIPSet(prefixedName(v6(CIDR)))!.createSpec).toBe('nethash family inet6 maxelem 4294967295');
    expect(m.hasIPSet(prefixedName(CIDR))).toBe(false);
    const restore = text(m);
    expect(restore).toContain(`-N ${ns6.kernelName} --exist nethash family inet6\n`);
    expect(restore).toContain(`-A ${ns6.kernelName} fe80::1\n`);
    expect(restore).toContain(`-A ${K.NS} 10.0.0.1\n`);
  });

  it('removes an IPv6 member from the inet6 sibling only, with pod-key ownership as for IPv4', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'pod-a');
    m.addToSets([NS], '2001:db8::1', 'pod-a');
    m.removeFromSets([NS], '2001:DB8::1', 'pod-b');
    expect(m.getIPSet(prefixedName(v6(NS)))!.members).toEqual(['2001:db8::1']);
    m.removeFromSets([NS], '2001:0db8::1', 'pod-a');
    expect(m.getIPSet(prefixedName(v6(NS)))!.members).toEqual([]);
    expect(m.getIPSet(prefixedName(NS))!.members).toEqual(['10.0.0.1']);
  });

  it('an explicit family refuses the other family before any change', () => {
    const m = manager();
    for (const [meta, member] of [
      [{ ...NS, family: 'inet' }, '2001:db8::1'],
      [v6(NS), '10.0.0.1'],
      [v6(NAMED_PORT), '10.0.0.1,tcp:80'],
    ] as const) {
      let error: unknown;
      try {
        m.addToSets([meta], member, 'p');
      } catch (e) {
        error = e;
      }
      expect(isIpsetsError(error, 'INVALID_MEMBER')).toBe(true);
      expect((error as Error).message).toMatch(/family inet6? set holds IPv[46] addresses only/);
    }
    expect(m.size).toBe(0);
  });

  it('a list holding a logical set holds both of its kernel sets, whichever comes first', () => {
    const m = manager();
    m.addToSets([NS], '10.0.0.1', 'p');
    m.addToSets([NS], '::1', 'p');
    m.addToLists([NESTED], [NS]);
    expect(m.getIPSet(prefixedName(NESTED))!.members).toEqual([prefixedName(NS), prefixedName(v6(NS))]);
    // The list first, the IPv6 member later: the sibling joins the list when it is created.
    m.addToLists([KEY_NS], [CIDR]);
    expect(m.getIPSet(prefixedName(KEY_NS))!.members).toEqual([prefixedName(CIDR)]);
    m.addToSets([CIDR], '2001:db8::/32', 'n');
    expect(m.getIPSet(prefixedName(KEY_NS))!.members).toEqual([prefixedName(CIDR), prefixedName(v6(CIDR))]);
    const restore = text(m);
    expect(restore).toContain(`-A ${K.KEY_NS} ${m.getIPSet(prefixedName(v6(CIDR)))!.kernelName}\n`);
    // Removing the logical set removes both; an explicit family names one kernel set only.
    m.removeFromList(KEY_NS, [CIDR]);
    expect(m.getIPSet(prefixedName(KEY_NS))!.members).toEqual([]);
    m.removeFromList(NESTED, [v6(NS)]);
    expect(m.getIPSet(prefixedName(NESTED))!.members).toEqual([prefixedName(NS)]);
    m.addToLists([NESTED], [{ ...NS, family: 'inet' }]);
    m.addToLists([KEY_NS], [{ ...CIDR, family: 'inet' }]);
    expect(m.getIPSet(prefixedName(KEY_NS))!.members).toEqual([prefixedName(CIDR)]);
  });

  // Defect pinned: a list's family-less reference to a set declared `family: inet6`
  // made an empty `family inet` sibling just to put it into the list.
  it('a list holds a set declared with one family alone: no sibling of the other family, in the kernel or in the list', () => {
    const m = manager();
    m.createIPSets([v6(NS)]);
    m.addToSets([v6(NS)], 'fd00::1', 'p');
    m.addToSets([{ ...CIDR, family: 'inet' }], '10.0.0.0/8', 'n');
    m.addToLists([NESTED], [NS, CIDR]);
    expect(m.hasIPSet(prefixedName(NS))).toBe(false);
    expect(m.getIPSet(prefixedName(NESTED))!.members).toEqual([prefixedName(v6(NS)), prefixedName(CIDR)]);
    expect(m.desiredState().sets.map((s) => s.label).sort()).toEqual([prefixedName(CIDR), prefixedName(NESTED), prefixedName(v6(NS))].sort());
    // The list follows neither set into the other family, and takes the set out again by the same name.
    expect(() => m.addToSets([{ ...CIDR, family: 'inet' }], 'fd00::/8', 'n')).toThrow();
    m.removeFromList(NESTED, [NS]);
    expect(m.getIPSet(prefixedName(NESTED))!.members).toEqual([prefixedName(CIDR)]);
    // A logical set (no family named) still brings both families.
    m.addToSets([KEY_NS_MEMBER], '10.0.0.1', 'p');
    m.addToSets([KEY_NS_MEMBER], 'fd00::2', 'p');
    m.addToLists([NESTED], [KEY_NS_MEMBER]);
    expect(m.getIPSet(prefixedName(NESTED))!.members).toEqual([prefixedName(CIDR), prefixedName(KEY_NS_MEMBER), prefixedName(v6(KEY_NS_MEMBER))]);
  });

  it('lists and the shared empty set have no inet6 sibling', () => {
    const m = manager({ addEmptySetToLists: true });
    expect(() => m.addToLists([v6(NESTED)], [NS])).toThrow(/has no family inet6/);
    expect(() => m.createIPSets([{ name: 'emptyhashset', type: 'emptyHashSet', family: 'inet6' }])).toThrow(/has no family inet6/);
    m.addToLists([KEY_NS], [NS]);
    m.addToSets([NS], 'fd00::1', 'p');
    expect(m.getIPSet(prefixedName(KEY_NS))!.members).toEqual(['empty-emptyhashset', prefixedName(NS), prefixedName(v6(NS))]);
  });

  it('a second plan against the kernel it produced is empty (canonical IPv6 forms compare equal)', () => {
    const m = manager();
    m.addToSets([NS], '2001:DB8:0:0::1', 'p');
    m.addToSets([CIDR], '2001:db8::ff/120', 'n');
    applyAll(m);
    const desired = m.desiredState();
    const saved = {
      sets: desired.sets.map((s) =>
        savedSet(
          s.name,
          s.spec.startsWith('nethash') ? 'hash:net' : 'hash:ip,port',
          `family inet6 hashsize 1024 maxelem ${s.spec.endsWith('4294967295') ? '4294967295' : '65536'} bucketsize 12 initval 0x1`,
          [...s.members],
        ),
      ),
      problems: [],
    };
    expect(saved.sets.flatMap((s) => [...s.members]).sort()).toEqual(['2001:db8::/120', '2001:db8::1']);
    expect(planReconcile(desired, saved, []).lines).toEqual([]);
    // The same set saved as family inet is a conflict, never silently kept.
    const wrong = { ...saved, sets: saved.sets.map((s) => savedSet(s.name, s.type, s.options.replace('inet6', 'inet'), [...s.members])) };
    const replan = planReconcile(desired, wrong, []);
    expect(replan.notes?.map((n) => n.message).join('\n')).toMatch(/kernel family "inet" differs from "inet6"/);
  });

  it('the inet6 sibling follows its logical set: references (also in mode on-need) and deletion', () => {
    const m = manager({ mode: 'on-need' });
    m.addReference(CIDR, 'policy/a', 'netpol');
    m.addToSets([CIDR], '10.0.0.0/8', 'n');
    // Created after the reference: it copies it, so on-need puts it in the kernel too.
    m.addToSets([CIDR], 'fd00::/8', 'n');
    const cidr6 = m.getIPSet(prefixedName(v6(CIDR)))!;
    expect(cidr6.netPolReferences).toEqual(['policy/a']);
    expect(cidr6.inKernel).toBe(true);
    expect(text(m)).toContain(`-A ${cidr6.kernelName} fd00::/8\n`);
    // Created before the reference: the reference reaches it too.
    m.addToSets([NS], 'fd00::1', 'p');
    m.addReference(NS, 'sel', 'selector');
    expect(m.getIPSet(prefixedName(v6(NS)))!.selectorReferences).toEqual(['sel']);
    m.deleteReference(prefixedName(CIDR), 'policy/a', 'netpol');
    expect(m.getIPSet(prefixedName(v6(CIDR)))!.netPolReferences).toEqual([]);
    expect(m.getIPSet(prefixedName(v6(CIDR)))!.inKernel).toBe(false);
    m.removeFromSets([CIDR], '10.0.0.0/8', 'n');
    m.removeFromSets([CIDR], 'fd00::/8', 'n');
    expect(m.deleteIPSet(prefixedName(CIDR))).toBe(true);
    expect(m.hasIPSet(prefixedName(CIDR))).toBe(false);
    expect(m.hasIPSet(prefixedName(v6(CIDR)))).toBe(false);
  });
});
