/**
 * `ipset swap` and `ipset rename` on the fake kernel against ipset 7.17, with what the
 * random differential scripts cannot set up: iptables rules (`-m set --match-set`)
 * and list:set memberships referencing the sets. Each case starts from the same sets,
 * adds the iptables references, runs one restore text or one single command, and
 * compares exit code, stderr, the normalised `ipset save` and every set's
 * `References:` on both kernels. The recorded real outcomes (measured here in a
 * namespace) are pinned too, so a change of ipset shows up as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandResult } from '@ipsets/core';
import { FakeKernel } from '@ipsets/fake-kernel';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeKernel } from '../helpers/kernel.js';
import { normalisedText } from '../helpers/save.js';

/** a and b are listed (a in l, b in l2); f and g are in no list. */
const SETUP = [
  'create a hash:net',
  'add a 10.0.0.0/24',
  'create b hash:net maxelem 100',
  'add b 10.1.0.0/16',
  'create p hash:ip,port',
  'create i hash:ip',
  'create six hash:net family inet6',
  'create n6 hash:net family inet6',
  'create l list:set',
  'add l a',
  'create l2 list:set',
  'add l2 b',
  'create f hash:net',
  'add f 10.2.0.0/16',
  'create g hash:net',
].join('\n');

interface Case {
  /** Sets an iptables rule references before the command. */
  refs?: string[];
  /** A restore text (lines) … */
  restore?: string[];
  /** … or one command line (argv without `ipset`). */
  argv?: string[];
  /** The real kernel's exit code and stderr, as measured. */
  exitCode: number;
  stderr: string;
}

const V = 'ipset v7.17: ';
const CASES: Record<string, Case> = {
  'swap two hash:net sets of different maxelem': { restore: ['swap a b'], exitCode: 0, stderr: '' },
  'swap a set with itself': { restore: ['swap a a'], exitCode: 0, stderr: '' },
  'swap, first set missing': { restore: ['swap x a'], exitCode: 1, stderr: `${V}Error in line 1: The set with the given name does not exist\n` },
  'swap, second set missing': { restore: ['swap a x'], exitCode: 1, stderr: `${V}Error in line 1: Sets cannot be swapped: the second set does not exist\n` },
  'swap hash:net with hash:ip,port': { restore: ['swap a p'], exitCode: 1, stderr: `${V}Error in line 1: The sets cannot be swapped: their type does not match\n` },
  'swap hash:net with hash:ip': { restore: ['swap a i'], exitCode: 1, stderr: `${V}Error in line 1: The sets cannot be swapped: their type does not match\n` },
  'swap inet with inet6 hash:net': { restore: ['swap a six'], exitCode: 1, stderr: `${V}Error in line 1: The sets cannot be swapped: their type does not match\n` },
  'swap two inet6 sets': { restore: ['swap six n6'], exitCode: 0, stderr: '' },
  'swap a list:set with a hash:net': { restore: ['swap l a'], exitCode: 1, stderr: `${V}Error in line 1: The sets cannot be swapped: their type does not match\n` },
  'swap two list:sets: members move, names and references stay': { restore: ['swap l l2'], exitCode: 0, stderr: '' },
  'swap a set an iptables rule references: works, the rule now matches the new contents': {
    refs: ['a'],
    restore: ['swap a b'],
    exitCode: 0,
    stderr: '',
  },
  'swap, then destroy the referenced name: refused': {
    refs: ['a'],
    restore: ['swap a f', 'destroy a'],
    exitCode: 1,
    stderr: `${V}Error in line 2: Set cannot be destroyed: it is in use by a kernel component\n`,
  },
  'swap into a referenced set, then destroy the temporary': { refs: ['a'], restore: ['swap a f', 'destroy f'], exitCode: 0, stderr: '' },
  'adds after a swap parse by the swapped-in type': {
    restore: ['swap a b', 'add a 10.9.9.0/24', 'add b 10.7.0.0/16', 'add a 10.9.9.0/24,tcp:80'],
    exitCode: 1,
    stderr: `${V}Error in line 4: Syntax error: Elem separator in 10.9.9.0/24,tcp:80, but settype hash:net supports none.\n`,
  },
  'rename a set in no list': { restore: ['rename f z', 'add z 10.9.0.0/16'], exitCode: 0, stderr: '' },
  'rename, then the old name is gone': {
    restore: ['rename f z', 'add z 10.9.0.0/16', 'add f 10.8.0.0/16'],
    exitCode: 1,
    stderr: `${V}Error in line 3: The set with the given name does not exist\n`,
  },
  'rename onto an existing set': { restore: ['rename f g'], exitCode: 1, stderr: `${V}Error in line 1: Set cannot be renamed: a set with the new name already exists\n` },
  'rename onto itself': { restore: ['rename f f'], exitCode: 1, stderr: `${V}Error in line 1: Set cannot be renamed: a set with the new name already exists\n` },
  'rename a missing set': { restore: ['rename x z'], exitCode: 1, stderr: `${V}Error in line 1: The set with the given name does not exist\n` },
  'rename a set an iptables rule references': {
    refs: ['f'],
    restore: ['rename f z'],
    exitCode: 1,
    stderr: `${V}Error in line 1: Set cannot be renamed: it is in use by another system\n`,
  },
  'rename a set a list holds (a list membership is a reference)': {
    restore: ['rename a z'],
    exitCode: 1,
    stderr: `${V}Error in line 1: Set cannot be renamed: it is in use by another system\n`,
  },
  'rename a listed set onto an existing name: in use wins': {
    restore: ['rename a b'],
    exitCode: 1,
    stderr: `${V}Error in line 1: Set cannot be renamed: it is in use by another system\n`,
  },
  'rename to a name longer than 31 characters': {
    restore: [`rename f ${'y'.repeat(32)}`],
    exitCode: 1,
    stderr: `${V}Error in line 1: Syntax error: setname '${'y'.repeat(32)}' is longer than 31 characters\n`,
  },
  'rename back and forth, and to a name starting with a dash': { restore: ['rename f z', 'rename z f', 'rename f -z'], exitCode: 0, stderr: '' },
  'command: swap': { argv: ['swap', 'a', 'b'], exitCode: 0, stderr: '' },
  'command: swap with a missing set': { argv: ['swap', 'x', 'y'], exitCode: 1, stderr: `${V}The set with the given name does not exist\n` },
  'command: -exist swap, second missing': { argv: ['-exist', 'swap', 'a', 'x'], exitCode: 1, stderr: `${V}Sets cannot be swapped: the second set does not exist\n` },
  'command: swap of another type': { argv: ['swap', 'l', 'a'], exitCode: 1, stderr: `${V}The sets cannot be swapped: their type does not match\n` },
  'command: swap without arguments': {
    argv: ['swap'],
    exitCode: 2,
    stderr: `${V}Missing mandatory argument to command swap\nTry \`ipset help' for more information.\n`,
  },
  'command: swap with three names': { argv: ['swap', 'a', 'b', 'c'], exitCode: 2, stderr: `${V}Unknown argument c\nTry \`ipset help' for more information.\n` },
  'command: rename': { argv: ['rename', 'f', 'z'], exitCode: 0, stderr: '' },
  'command: -exist rename onto an existing set': {
    argv: ['-exist', 'rename', 'f', 'g'],
    exitCode: 1,
    stderr: `${V}Set cannot be renamed: a set with the new name already exists\n`,
  },
  'command: rename with one name': {
    argv: ['rename', 'f'],
    exitCode: 2,
    stderr: `${V}Missing second mandatory argument to command rename\nTry \`ipset help' for more information.\n`,
  },
  'command: rename of a referenced set': {
    refs: ['f'],
    argv: ['rename', 'f', 'z'],
    exitCode: 1,
    stderr: `${V}Set cannot be renamed: it is in use by another system\n`,
  },
};

/** `name references` per set of `ipset list -t`, in output order. */
function references(listText: string): string {
  const out: string[] = [];
  let name = '';
  for (const line of listText.split('\n')) {
    if (line.startsWith('Name: ')) name = line.slice(6);
    if (line.startsWith('References: ')) out.push(`${name} ${line.slice(12)}`);
  }
  return out.join('\n');
}

interface Outcome {
  exitCode: number;
  stderr: string;
  save: string;
  references: string;
}

function fakeOutcome(c: Case): Outcome {
  const kernel = new FakeKernel();
  expect(kernel.restore(`${SETUP}\n`).exitCode).toBe(0);
  for (const r of c.refs ?? []) kernel.reference(r);
  const result: CommandResult = c.restore !== undefined ? kernel.exec(['restore'], c.restore.map((l) => `${l}\n`).join('')) : kernel.exec(c.argv!);
  return {
    exitCode: result.exitCode,
    stderr: result.stderr,
    save: normalisedText(kernel.save().stdout),
    references: references(kernel.listHeaders().stdout),
  };
}

describe('fake kernel swap and rename (the recorded real outcomes)', () => {
  it.each(Object.entries(CASES))('%s', (_, c) => {
    const fake = fakeOutcome(c);
    expect({ exitCode: fake.exitCode, stderr: fake.stderr }).toEqual({ exitCode: c.exitCode, stderr: c.stderr });
  });
});

describeKernel('fake kernel swap and rename versus the real kernel (references from iptables and lists)', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = await createTestNamespace('h8-swap');
  });
  afterAll(async () => {
    await ns?.dispose();
  });

  async function realOutcome(c: Case): Promise<Outcome> {
    await ns.run(['iptables', '-F']);
    await ns.run(['ipset', 'restore'], 'flush\ndestroy\n');
    expect((await ns.run(['ipset', 'restore'], `${SETUP}\n`)).exitCode).toBe(0);
    for (const r of c.refs ?? []) {
      expect((await ns.run(['iptables', '-A', 'INPUT', '-m', 'set', '--match-set', r, 'src', '-j', 'ACCEPT'])).exitCode).toBe(0);
    }
    const result = c.restore !== undefined ? await ns.run(['ipset', 'restore'], c.restore.map((l) => `${l}\n`).join('')) : await ns.run(['ipset', ...c.argv!]);
    return {
      exitCode: result.exitCode,
      stderr: result.stderr,
      save: normalisedText((await ns.run(['ipset', 'save'])).stdout),
      references: references((await ns.run(['ipset', 'list', '-t'])).stdout),
    };
  }

  it.each(Object.entries(CASES))('%s', async (_, c) => {
    const real = await realOutcome(c);
    expect({ exitCode: real.exitCode, stderr: real.stderr }).toEqual({ exitCode: c.exitCode, stderr: c.stderr });
    expect(fakeOutcome(c)).toEqual(real);
  });
});
