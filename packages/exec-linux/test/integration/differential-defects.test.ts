/**
 * Differences between the fake kernel (@ipsets/testing) and ipset 7.17 that the
 * differential test and the soak run found, fixed in the fake and kept here as
 * real-versus-fake regression cases (the unit tests of @ipsets/testing pin the exact
 * texts; the random generator produces these shapes again).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/testing';
import { createTestNamespace } from '../../src/netns.js';
import type { TestNamespace } from '../../src/netns.js';
import { describeDifference, runFake, runRealInShell } from '../helpers/differential.js';
import type { SideOutcome } from '../helpers/differential.js';
import { describeKernel } from '../helpers/kernel.js';
import { openNamespaceShell } from '../helpers/netns-shell.js';
import type { NamespaceShell } from '../helpers/netns-shell.js';

describeKernel('fake kernel defects found by the differential test', () => {
  let ns: TestNamespace;
  let shell: NamespaceShell;
  beforeAll(async () => {
    ns = await createTestNamespace('defects');
    shell = await openNamespaceShell(ns.name);
  });
  afterAll(async () => {
    await shell?.close();
    await ns?.dispose();
  });

  const both = async (lines: string[]): Promise<{ real: SideOutcome; fake: SideOutcome; difference: string | undefined }> => {
    const script = { text: lines.map((l) => `${l}\n`).join(''), exist: false };
    const real = await runRealInShell(shell, script);
    const fake = runFake(() => new FakeKernel(), script);
    return { real, fake, difference: describeDifference(script, real, fake) };
  };

  it('the real kernel side of each case is as recorded (ipset 7.17)', async () => {
    const skb = await both(['create d hash:ip skbinfo', 'add d 10.0.0.1 skbmark 1']);
    expect(skb.real).toMatchObject({
      exitCode: 1,
      firstError: 'ipset v7.17: Error in line 2: Syntax error: Invalid skbmark format, it should be:  MARK/MASK or MARK (see manpage)',
    });
    const icmp = await both(['create m hash:ip', 'create p hash:ip,port', 'add m 10.0.0.1', 'del m 10.0.0.9', 'add p 10.0.0.1,icmpv6:ping']);
    expect(icmp.real).toMatchObject({ exitCode: 1, firstError: "ipset v7.17: Error in line 4: Element cannot be deleted from the set: it's not added" });
  });

  it('fixed: a decimal skbmark (`skbmark 1`) is a userspace syntax error (ipset 7.17 wants 0x…), nothing added', async () => {
    expect((await both(['create d hash:ip skbinfo', 'add d 10.0.0.2', 'add d 10.0.0.1 skbmark 1'])).difference).toBeUndefined();
  });

  it('fixed: `skbmark 1` on a set without skbinfo is the userspace syntax error, not the kernel skbinfo error', async () => {
    // The side matters: a userspace error loses the pending batch, a kernel error sends it first.
    expect((await both(['create d hash:ip', 'add d 10.0.0.2', 'add d 10.0.0.1 skbmark 1'])).difference).toBeUndefined();
  });

  it('fixed: skbmark/skbprio forms as sscanf reads them, zero values unreported, an -exist re-add replaces skbinfo', async () => {
    const lines = [
      'create d hash:ip skbinfo',
      'add d 10.0.0.1 skbmark 0x1/255 skbprio 10000:1',
      'add d 10.0.0.2 skbmark 0x-1 skbprio -1:2zz skbqueue 0x10',
      'add d 10.0.0.3 skbmark 0x0/0x0 skbprio 0:0 skbqueue 0',
      'add d 10.0.0.4 skbmark 0x0x5/0x0XfF',
      'create z hash:ip',
      'add d 10.0.0.1 skbqueue 4 -exist',
      'create y hash:ip',
      'add d 10.0.0.9 skbprio 1',
    ];
    const result = await both(lines);
    expect(result.real.exitCode).toBe(1);
    expect(result.real.save).toContain('add d 10.0.0.1 skbqueue 4\n');
    expect(result.difference).toBeUndefined();
  });

  it('fixed: an icmpv6 element in an inet hash:ip,port set after a pending DEL batch: ipset sends the batch first (its kernel error wins)', async () => {
    expect(
      (await both(['create m hash:ip', 'create p hash:ip,port', 'add m 10.0.0.1', 'del m 10.0.0.9', 'add p 10.0.0.1,icmpv6:ping'])).difference,
    ).toBeUndefined();
  });

  it('fixed: an icmpv6 element in an inet hash:ip,port set after a pending DEL batch: ipset applies that batch before failing', async () => {
    expect(
      (await both(['create m hash:ip', 'create p hash:ip,port', 'add m 10.0.0.1', 'add m 10.0.0.2', 'del m 10.0.0.1', 'add p 10.0.0.1,icmpv6:ping']))
        .difference,
    ).toBeUndefined();
  });

  it('fixed: the same for an icmp element in an inet6 hash:ip,port set, and for a del batch on the same set', async () => {
    expect((await both(['create p6 hash:ip,port family inet6', 'create m hash:ip', 'add m 10.0.0.1', 'del m 10.0.0.1', 'add p6 ::1,icmp:ping'])).difference).toBeUndefined();
    expect((await both(['create p6 hash:ip,port family inet6', 'add p6 ::5,80', 'create z hash:ip', 'del p6 ::5,80', 'add p6 ::1,icmp:ping'])).difference).toBeUndefined();
  });

  it('fixed: after an add (even one already sent by COMMIT) ipset segfaults; a later option error on the line wins over everything', async () => {
    const base = ['create m hash:ip', 'create p hash:ip,port', 'add m 10.0.0.1'];
    const segv = await both([...base, 'add m 10.0.0.2', 'COMMIT', 'add p 10.0.0.1,icmpv6:ping']);
    expect(segv.real.signal).toBe('SIGSEGV');
    expect(segv.difference).toBeUndefined();
    expect((await both([...base, 'add m 10.0.0.2', 'add p 10.0.0.1,icmpv6:ping bogus'])).difference).toBeUndefined();
    expect((await both([...base, 'del m 10.0.0.9', 'add p 10.0.0.1,icmpv6:ping timeout abc'])).difference).toBeUndefined();
  });
});
