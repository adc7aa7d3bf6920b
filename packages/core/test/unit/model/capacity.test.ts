import { describe, expect, it } from 'vitest';
import { createSpecText, effectiveCapacity, validateCapacity } from '../../../src/model/capacity.js';
import { IPSetManager } from '../../../src/manager/manager.js';
import { planApply } from '../../../src/plan/plan-apply.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { temporaryName } from '../../../src/plan/rebuild.js';
import { renderLine, renderRestore } from '../../../src/session/render.js';
import type { DesiredState, SavedSet } from '../../../src/types.js';
import { savedSet } from '../../../src/parse/saved-members.js';

describe('capacity: maxelem and hashsize per set', () => {
  it('renders the create line NPM always wrote when no capacity is given, and the options after the spec when it is', () => {
    expect(createSpecText('nethash')).toBe('nethash');
    expect(createSpecText('nethash', { maxelem: 131072, hashsize: 2048 })).toBe('nethash maxelem 131072 hashsize 2048');
    expect(createSpecText('hash:ip,port', { hashsize: 4096 })).toBe('hash:ip,port hashsize 4096');
    // A CIDR-block set's own maxelem gives way to the configured one, and stays when only hashsize is given.
    expect(createSpecText('nethash maxelem 4294967295', { maxelem: 1000 })).toBe('nethash maxelem 1000');
    expect(createSpecText('nethash maxelem 4294967295', { hashsize: 64 })).toBe('nethash maxelem 4294967295 hashsize 64');
    expect(renderLine({ op: 'create', set: 'azure-npm-x', spec: 'nethash', maxelem: 131072, hashsize: 2048, section: 's', onError: [] })).toBe(
      '-N azure-npm-x --exist nethash maxelem 131072 hashsize 2048',
    );
  });

  it('defaults are the kernel\'s: maxelem 65536 (4294967295 for CIDR blocks), hashsize 1024', () => {
    expect(effectiveCapacity('nethash')).toEqual({ maxelem: 65536, hashsize: 1024 });
    expect(effectiveCapacity('nethash maxelem 4294967295')).toEqual({ maxelem: 4294967295, hashsize: 1024 });
    expect(effectiveCapacity('hash:ip,port', { maxelem: 10 })).toEqual({ maxelem: 10, hashsize: 1024 });
  });

  it.each([
    [{ maxelem: 0 }, /Invalid maxelem "0" for desired set "s"; expected an integer from 1 to 4294967295/],
    [{ maxelem: 4294967296 }, /Invalid maxelem "4294967296"/],
    [{ maxelem: 1.5 }, /Invalid maxelem "1.5"/],
    [{ maxelem: '100' }, /Invalid maxelem "100"/],
    [{ hashsize: 100 }, /Invalid hashsize "100" for desired set "s"; expected a power of two from 64 to 1073741824/],
    [{ hashsize: 32 }, /Invalid hashsize "32"/],
    [{ hashsize: 2147483648 }, /Invalid hashsize "2147483648"/],
    [{ size: 8 }, /Unknown capacity option "size" for desired set "s"; expected maxelem or hashsize/],
    [7, /Invalid capacity "7" for desired set "s"/],
  ])('refuses %j with a clear error (the kernel\'s limits, measured)', (capacity, message) => {
    expect(() => validateCapacity(capacity, 'nethash', 'desired set "s"')).toThrow(message);
  });

  it('refuses capacity on a list:set, which has neither (ipset: Unknown argument `maxelem\')', () => {
    expect(() => validateCapacity({ maxelem: 10 }, 'setlist', 'desired set "l"')).toThrow(/list:set, which has no maxelem or hashsize/);
    expect(validateCapacity({}, 'setlist', 'desired set "l"')).toEqual({});
  });

  it('a hand-built plan line with a bad capacity is refused at rendering, never written', () => {
    const line = { op: 'create' as const, set: 'azure-npm-x', spec: 'nethash' as const, maxelem: '1\n-X azure-npm-y' as unknown as number, section: 's', onError: [] };
    expect(() => renderLine(line)).toThrow(/Invalid maxelem/);
  });
});

describe('capacity per set type in the manager', () => {
  it('planApply creates sets of a configured type with its capacity; other types as before', () => {
    const m = new IPSetManager({ capacity: { namespace: { maxelem: 131072, hashsize: 2048 }, cidrBlocks: { maxelem: 5000 } } });
    m.createIPSets([
      { name: 'default', type: 'namespace' },
      { name: 'app', type: 'keyLabelOfPod' },
      { name: 'policy-in', type: 'cidrBlocks' },
    ]);
    const text = renderRestore(planApply(m));
    const creates = text.split('\n').filter((l) => l.startsWith('-N'));
    expect(creates.map((l) => l.replace(/^-N \S+ /, ''))).toEqual([
      '--exist nethash maxelem 131072 hashsize 2048',
      '--exist nethash',
      '--exist nethash maxelem 5000',
    ]);
    const desired = m.desiredState();
    expect(desired.sets.map((s) => [s.maxelem, s.hashsize])).toEqual([
      [131072, 2048],
      [undefined, undefined],
      [5000, undefined],
    ]);
  });

  it('refuses a bad capacity configuration when the manager is made', () => {
    expect(() => new IPSetManager({ capacity: { namespace: { hashsize: 1000 } } })).toThrow(/Invalid hashsize "1000" for capacity of set type "namespace"/);
    expect(() => new IPSetManager({ capacity: { nestedLabelOfPod: { maxelem: 10 } } })).toThrow(/list:set/);
    expect(() => new IPSetManager({ capacity: { pods: { maxelem: 10 } } as never })).toThrow(/unknown set type "pods" in capacity/);
  });
});

describe('capacity per desired set in reconcile', () => {
  const saved = (name: string, options: string, members: string[] = []): SavedSet => savedSet(name, 'hash:net', options, members);
  const desired = (extra: object): DesiredState => ({
    owner: 'azure-npm-',
    sets: [{ name: 'azure-npm-a', spec: 'nethash', members: ['10.0.0.0/24'], ...extra }],
  });

  it('creates a missing set with its capacity', () => {
    const plan = planReconcile(desired({ maxelem: 131072, hashsize: 2048 }), { sets: [], problems: [] }, []);
    expect(renderRestore(plan)).toBe('-N azure-npm-a --exist nethash maxelem 131072 hashsize 2048\n-A azure-npm-a 10.0.0.0/24\n');
  });

  it('a kernel set with another maxelem is rebuilt through a temporary set and swap, referenced or not', () => {
    const snapshot = { sets: [saved('azure-npm-a', 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1')], problems: [] };
    for (const references of [0, 2]) {
      const plan = planReconcile(desired({ maxelem: 131072 }), snapshot, [
        { name: 'azure-npm-a', type: 'hash:net', header: '', references, entries: 0 },
      ]);
      const t = temporaryName('azure-npm-', 'azure-npm-a');
      expect(renderRestore(plan)).toBe(`-X ${t}\n-N ${t} --exist nethash maxelem 131072\n-A ${t} 10.0.0.0/24\n-W ${t} azure-npm-a\n-X ${t}\n`);
      expect(plan.notes?.[0]).toMatchObject({ kind: 'info', message: expect.stringContaining('rebuild (maxelem 65536 → 131072)') });
    }
  });

  it('a kernel set with the same maxelem and another hashsize is kept (the kernel grows hashsize by itself)', () => {
    const snapshot = { sets: [saved('azure-npm-a', 'family inet hashsize 4096 maxelem 131072 bucketsize 12 initval 0x1', ['10.0.0.0/24'])], problems: [] };
    const plan = planReconcile(desired({ maxelem: 131072, hashsize: 2048 }), snapshot, []);
    expect(plan.lines).toEqual([]);
  });

  it('refuses a desired set with a bad capacity before planning anything', () => {
    expect(() => planReconcile(desired({ maxelem: -1 }), { sets: [], problems: [] }, [])).toThrow(/Invalid maxelem "-1" for desired set "azure-npm-a"/);
  });
});
