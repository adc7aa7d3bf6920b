/**
 * Differences between the fake kernel (@ipsets/testing) and ipset 7.17 that the
 * differential test and the soak run found, fixed in the fake and kept here as
 * real-versus-fake regression cases (the unit tests of @ipsets/testing pin the exact
 * texts; the random generator produces these shapes again).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeKernel } from '@ipsets/fake-kernel';
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

  const both = async (
    lines: string[],
    options: { setup?: string[]; finalNewline?: boolean } = {},
  ): Promise<{ real: SideOutcome; fake: SideOutcome; difference: string | undefined }> => {
    const text = lines.map((l) => `${l}\n`).join('');
    const script = {
      text: options.finalNewline === false ? text.slice(0, -1) : text,
      exist: false,
      ...(options.setup === undefined ? {} : { setup: options.setup.map((l) => `${l}\n`).join('') }),
    };
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

  // Found by the widened generator (lines near the 1,023-byte fgets limit, a last line
  // without a newline, inet6 ranges and tests, sets made by an earlier run).

  it('fixed: a word that ends in a closing quote at the end of an fgets chunk is kept (a comment up to the 1,023-byte limit, or on a last line without newline)', async () => {
    // 1,023 bytes: the chunk ends at the closing quote, the newline is a chunk of its own.
    const tail = ` comment "${'z'.repeat(200)}"`;
    const atLimit = `add c 10.0.0.5${' '.repeat(1023 - 'add c 10.0.0.5'.length - tail.length)}${tail}`;
    const limit = await both(['create c hash:ip comment', atLimit, 'add c 10.0.0.6']);
    expect(limit.real).toMatchObject({ exitCode: 0 });
    expect(limit.real.save).toContain(`add c 10.0.0.5 comment "${'z'.repeat(200)}"`);
    expect(limit.difference).toBeUndefined();
    const eof = await both(['create c hash:ip comment', 'add c 10.0.0.1 comment "a b"'], { finalNewline: false });
    expect(eof.real.save).toContain('comment "a b"');
    expect(eof.difference).toBeUndefined();
    // An opening quote as the chunk's last byte is never closed.
    const open = await both(['create c hash:ip comment', 'add c 10.0.0.1 comment abc"'], { finalNewline: false });
    expect(open.real.firstError).toBe('ipset v7.17: Missing close quote!');
    expect(open.difference).toBeUndefined();
  });

  it('fixed: a multibyte character cut by the 1,023-byte chunk end: each chunk keeps its bytes of it', async () => {
    const line = `add c 10.0.0.5 comment ${'é'.repeat(60)}`;
    const cut = await both(['create c hash:ip comment', `${line}${' '.repeat(1024 - Buffer.byteLength(line) - 120)}${'é'.repeat(60)}`]);
    expect(cut.real.firstError).toContain('\ufffd');
    expect(cut.difference).toBeUndefined();
  });

  it('fixed: an inet6 hash:net element with a `-` after its `/` is refused as a range; a `-` at its end is a bad CIDR', async () => {
    for (const element of ['2001:db8::/127-2001:db8::5', '2001:db8::/-64', '2001:db8::-2001:db8::/64', '2001:db8::/64-']) {
      for (const command of ['add', 'test', '-T']) {
        expect((await both(['create n6 hash:net family inet6', `${command} n6 ${element}`])).difference, `${command} n6 ${element}`).toBeUndefined();
      }
    }
  });

  it('fixed: test of a hash:net set with an explicit /0 is "NOT in set" (both families)', async () => {
    const v4 = await both(['create n hash:net', 'add n 10.0.0.0/24', 'test n 10.0.0.1/0']);
    expect(v4.real).toMatchObject({ exitCode: 1, firstError: '10.0.0.1/0 is NOT in set n.' });
    expect(v4.difference).toBeUndefined();
    expect((await both(['create n6 hash:net family inet6', 'add n6 2001:db8::/64', '-T n6 2001:db8::1/00'])).difference).toBeUndefined();
  });

  it('fixed: a swap with a set that is not in the userspace cache leaves the cache as it was (a stale family included)', async () => {
    // `create a … family inet6 -exist` over the earlier run's inet `a` succeeds and caches `a` as inet6.
    const setup = ['create a hash:ip', 'create b hash:ip'];
    const stale = await both(['create a hash:ip family inet6 -exist', 'swap a b', 'add a 10.0.0.1'], { setup });
    expect(stale.real.firstError).toBe('ipset v7.17: Error in line 3: Syntax error: cannot parse 10.0.0.1: resolving to IPv6 address failed');
    expect(stale.difference).toBeUndefined();
    const fresh = await both(['create a hash:ip family inet6 -exist', 'swap a b', 'add b 10.0.0.1'], { setup });
    expect(fresh.real).toMatchObject({ exitCode: 0 });
    expect(fresh.difference).toBeUndefined();
  });
});
