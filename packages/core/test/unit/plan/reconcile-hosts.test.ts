import { describe, expect, it } from 'vitest';
import { isIpsetsError } from '../../../src/errors.js';
import { NOMATCH_FLAG, hostValue } from '../../../src/model/members.js';
import { planReconcile } from '../../../src/plan/plan-reconcile.js';
import { temporaryName } from '../../../src/plan/rebuild.js';
import { renderRestore } from '../../../src/session/render.js';
import type { SavedSet } from '../../../src/types.js';
import { savedSet } from '../../../src/parse/saved-members.js';

const NET = 'family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1a2b3c4d';

describe('hostValue (the numeric fast path of planReconcile)', () => {
  it('reads canonical host members, with or without nomatch', () => {
    expect(hostValue('10.0.0.1')).toBe(0x0a000001);
    expect(hostValue('10.0.0.1 nomatch')).toBe(0x0a000001 + NOMATCH_FLAG);
    expect(hostValue('255.255.255.255')).toBe(4294967295);
    expect(hostValue('0.0.0.0')).toBe(0);
  });

  it('refuses everything that is not a canonical host member', () => {
    for (const m of ['10.0.0.0/24', '010.0.0.1', '10.0.0.1,tcp:80', '10.0.0.1  nomatch', '10.0.0.1 nomatchx', '', '10.0.0.256', '10.0.0.1/32', '10.0.0']) {
      expect(hostValue(m), m).toBe(-1);
    }
  });
});

describe('planReconcile on host members (address table)', () => {
  const set = (members: string[]): SavedSet => savedSet('azure-npm-a', 'hash:net', NET, members);
  const headers = [{ name: 'azure-npm-a', type: 'hash:net', header: NET, references: 0, entries: 0 }];
  const run = (desired: string[], kernel: string[]): string =>
    renderRestore(planReconcile({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-a', spec: 'nethash', members: desired }] }, { sets: [set(kernel)], problems: [] }, headers));

  it('a non-canonical kernel member (10.0.0.03) is never echoed: the set is rebuilt through a temporary set and swap (it was flushed in place)', () => {
    const t = temporaryName('azure-npm-', 'azure-npm-a');
    expect(run(['10.0.0.1', '10.0.0.3'], ['10.0.0.1', '10.0.0.03'])).toBe(`-X ${t}\n-N ${t} --exist nethash\n-A ${t} 10.0.0.1\n-A ${t} 10.0.0.3\n-W ${t} azure-npm-a\n-X ${t}\n`);
  });

  it('compares the nomatch flag exactly as strings would', () => {
    const text = run(
      ['10.0.0.1', '10.0.0.2 nomatch', '10.0.0.3', '10.0.0.4/32', '10.0.1.0/24', '10.0.0.5 nomatch'],
      ['10.0.0.1 nomatch', '10.0.0.2', '10.0.0.4', '10.0.1.0/24', '10.0.0.5 nomatch', '10.0.0.6', '10.0.0.6'],
    );
    expect(text).toBe(
      [
        '-D azure-npm-a 10.0.0.1',
        '-D azure-npm-a 10.0.0.2',
        '-D azure-npm-a 10.0.0.6',
        '-D azure-npm-a 10.0.0.6',
        '-A azure-npm-a 10.0.0.1',
        '-A azure-npm-a 10.0.0.2 nomatch',
        '-A azure-npm-a 10.0.0.3',
        '',
      ].join('\n'),
    );
  });

  it('still refuses a host and the same host with nomatch, and accepts a repeated host', () => {
    expect(run(['10.0.0.1', '10.0.0.1/32', '10.0.0.1'], ['10.0.0.1'])).toBe('');
    let error: unknown;
    try {
      run(['10.0.0.1', '10.0.0.2', '10.0.0.1 nomatch'], []);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error) && error.code).toBe('INVALID_INPUT');
    expect(String((error as Error).message)).toContain('"10.0.0.1" and "10.0.0.1 nomatch"');
  });
});
