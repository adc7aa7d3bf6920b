/**
 * The port contract: a vitest suite that every {@link IpsetPort} must pass, whatever
 * kernel is behind it (the fake kernel here; the real one in a network namespace in
 * `@ipsets/exec-linux`). Import it from `@ipsets/testing/vitest`.
 *
 * The port runs `ipset -exist restore`, so the suite checks the behaviour core's
 * recovery relies on under `-exist`: round trips, no-op duplicates, error lines and
 * kinds, what survives an error of each side, and the formats of `save`, `list -n`
 * and `list -t`. Cases share one port and give their sets names unique to the case,
 * so one network namespace serves the whole suite; each case destroys its sets after.
 *
 * The subpath also holds `createDescribeKernel`, the `describe` of real-kernel suites
 * (run, skip with the reason, or fail in CI), so every package gates them one way.
 *
 * Why one file: the contract is one suite whose cases share one port and one namespace;
 * its cases are the list of promises a port makes, read top to bottom.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyIpsetError, parseListHeaders, parseListNames, parseSave } from '@ipsets/core';
import type { ClassifyOp, CommandResult, IpsetPort, SetHeader } from '@ipsets/core';
import { canonicalSave, canonicalSaveText } from '@ipsets/fake-kernel/invariants';

// The real-kernel gate as a `describe`, shared by every package's kernel tests.
export { createDescribeKernel } from './kernel-gate.js';
export type { DescribeKernel, KernelGateAnswer } from './kernel-gate.js';

/** What {@link describePortContract}'s factory returns. */
export interface PortContractFixture {
  /** The port under test; it must start without sets whose names begin with `pc` followed by a digit. */
  port: IpsetPort;
  /** Called once after the suite (delete the namespace, the state file …). */
  cleanup?: () => Promise<void>;
  /** Adds a reference to `set` from outside ipset (an iptables `-m set` rule on Linux). Cases that need it are skipped without it. */
  reference?(set: string): Promise<void>;
  /** Removes one reference added by {@link reference}. */
  unreference?(set: string): Promise<void>;
}

let suites = 0;

const VERSION = String.raw`ipset v\d+(?:\.\d+)*: `;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches `ipset vX.Y: Error in line N: message` (one line, one newline). */
function lineErrorPattern(line: number, message: string): RegExp {
  return new RegExp(`^${VERSION}Error in line ${line}: ${escape(message)}\\n$`);
}

/**
 * Declares the port contract suite `port contract: <name>`. `makePort` runs once
 * before the cases; `cleanup` once after them.
 *
 * @example
 * describePortContract('fake port', async () => ({ port: createFakePort(new FakeKernel()) }));
 */
export function describePortContract(name: string, makePort: () => Promise<PortContractFixture>): void {
  const suite = ++suites;
  describe(`port contract: ${name}`, () => {
    let fixture: PortContractFixture | undefined;
    let caseNo = 0;
    let prefix = '';
    let references: string[] = [];

    const port = (): IpsetPort => {
      if (fixture === undefined) throw new Error('the port fixture was not created (makePort failed?)');
      return fixture.port;
    };

    beforeAll(async () => {
      fixture = await makePort();
    });
    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    /** A fresh name space for one case: `pc<suite>-<case>-`. */
    const begin = (): void => {
      caseNo++;
      prefix = `pc${suite}-${caseNo}-`;
      references = [];
    };
    const n = (short: string): string => prefix + short;
    const ours = (set: string): boolean => set.startsWith(prefix);

    const restore = async (...lines: string[]): Promise<CommandResult> => port().restore(lines.map((l) => `${l}\n`).join(''));
    const restoreOk = async (...lines: string[]): Promise<void> => {
      const r = await restore(...lines);
      expect({ exitCode: r.exitCode, stderr: r.stderr, signal: r.signal }, `restore of:\n${lines.join('\n')}`).toEqual({
        exitCode: 0,
        stderr: '',
        signal: undefined,
      });
    };
    const saveText = async (): Promise<string> => {
      const r = await port().save();
      expect(r.exitCode, `ipset save failed: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    /** The case's sets as canonical save text. */
    const state = async (): Promise<string> => canonicalSaveText(await saveText(), ours);
    const names = async (): Promise<string[]> => {
      const r = await port().listNames();
      expect(r.exitCode, `ipset list -n failed: ${r.stderr}`).toBe(0);
      return parseListNames(r.stdout).filter(ours);
    };
    const headersText = async (): Promise<string> => {
      const r = await port().listHeaders();
      expect(r.exitCode, `ipset list -t failed: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const headers = async (): Promise<Map<string, SetHeader>> =>
      new Map(parseListHeaders(await headersText()).filter((h) => ours(h.name)).map((h) => [h.name, h]));
    const reference = async (set: string): Promise<void> => {
      await fixture!.reference!(set);
      references.push(set);
    };
    const unreference = async (set: string): Promise<void> => {
      await fixture!.unreference!(set);
      references.splice(references.indexOf(set), 1);
    };
    /** Classifies a failed restore the way the session does (with the failing line's op). */
    const classify = (r: CommandResult, op?: ClassifyOp) =>
      classifyIpsetError(r.stderr, { exitCode: r.exitCode, ...(r.signal === undefined ? {} : { signal: r.signal }), ...(op === undefined ? {} : { op }) });

    afterEach(async () => {
      if (fixture === undefined) return;
      for (const set of references.splice(0)) await fixture.unreference?.(set);
      // Lists first: destroying a list releases its members.
      const hs = [...(await headers()).values()];
      const order = [...hs.filter((h) => h.type === 'list:set'), ...hs.filter((h) => h.type !== 'list:set')];
      if (order.length > 0) await restore(...order.map((h) => `destroy ${h.name}`));
    });

    it('round-trips create, add, del, flush and destroy through restore and save (canonical members)', async () => {
      begin();
      const [N, P, L] = [n('net'), n('ipp'), n('list')];
      await restoreOk(
        `create ${N} hash:net`,
        `create ${P} hash:ip,port`,
        `create ${L} list:set`,
        `add ${N} 10.0.0.1`,
        `add ${N} 10.1.2.3/16`,
        `add ${N} 10.2.0.0/24 nomatch`,
        `add ${N} 10.0.0.9/32`,
        `add ${P} 10.0.0.1,tcp:80`,
        `add ${P} 10.0.0.2,udp:53`,
        `add ${P} 10.0.0.3,8080`,
        `add ${L} ${N}`,
        `add ${L} ${P}`,
      );
      expect(await state()).toBe(
        [
          `create ${N} hash:net family inet maxelem 65536 bucketsize 12`,
          `add ${N} 10.0.0.1`,
          `add ${N} 10.0.0.9`,
          `add ${N} 10.1.0.0/16`,
          `add ${N} 10.2.0.0/24 nomatch`,
          `create ${P} hash:ip,port family inet maxelem 65536 bucketsize 12`,
          `add ${P} 10.0.0.1,tcp:80`,
          `add ${P} 10.0.0.2,udp:53`,
          `add ${P} 10.0.0.3,tcp:8080`,
          `create ${L} list:set size 8`,
          `add ${L} ${N}`,
          `add ${L} ${P}`,
          '',
        ].join('\n'),
      );

      await restoreOk(`del ${N} 10.0.0.1`, `del ${N} 10.1.0.0/16`, `del ${L} ${N}`, `flush ${P}`, `destroy ${N}`);
      expect(await state()).toBe(
        [
          `create ${P} hash:ip,port family inet maxelem 65536 bucketsize 12`,
          `create ${L} list:set size 8`,
          `add ${L} ${P}`,
          '',
        ].join('\n'),
      );

      await restoreOk(`destroy ${L}`, `destroy ${P}`);
      expect(await names()).toEqual([]);
    });

    it("accepts the reference's line syntax (-N … --exist <spec>, -A, -D, -F, -X)", async () => {
      begin();
      const [N, C, P, L] = [n('ns'), n('cidr'), n('port'), n('nslabel')];
      await restoreOk(
        `-N ${N} --exist nethash`,
        `-N ${C} --exist nethash maxelem 4294967295`,
        `-N ${P} --exist hash:ip,port`,
        `-N ${L} --exist setlist`,
        `-A ${N} 10.0.0.1`,
        `-A ${N} 10.0.0.2`,
        `-A ${C} 10.0.0.0/8`,
        `-A ${C} 10.1.0.0/16 nomatch`,
        `-A ${P} 10.0.0.1,tcp:80`,
        `-A ${L} ${N}`,
        `-D ${N} 10.0.0.2`,
        `-D ${C} 10.1.0.0/16`,
      );
      expect(await state()).toBe(
        [
          `create ${N} hash:net family inet maxelem 65536 bucketsize 12`,
          `add ${N} 10.0.0.1`,
          `create ${C} hash:net family inet maxelem 4294967295 bucketsize 12`,
          `add ${C} 10.0.0.0/8`,
          `create ${P} hash:ip,port family inet maxelem 65536 bucketsize 12`,
          `add ${P} 10.0.0.1,tcp:80`,
          `create ${L} list:set size 8`,
          `add ${L} ${N}`,
          '',
        ].join('\n'),
      );
      await restoreOk(`-F ${L}`, `-X ${L}`, `-F ${N}`, `-X ${N}`);
      expect(await names()).toEqual([C, P]);
    });

    it('-exist: duplicate adds, missing dels, identical creates and destroys of missing sets are no-ops', async () => {
      begin();
      const [N, L, M] = [n('net'), n('list'), n('member')];
      await restoreOk(`create ${N} hash:net`, `create ${M} hash:net`, `create ${L} list:set`, `add ${N} 10.0.0.1`, `add ${L} ${M}`);
      await restoreOk(
        `create ${N} hash:net`,
        `create ${L} list:set`,
        `add ${N} 10.0.0.1`,
        `add ${N} 10.0.0.1`,
        `del ${N} 10.0.0.2`,
        `add ${N} 10.0.0.3`,
        `add ${L} ${M}`,
        `del ${L} ${N}`,
        `destroy ${n('missing')}`,
      );
      expect(await state()).toBe(
        [
          `create ${N} hash:net family inet maxelem 65536 bucketsize 12`,
          `add ${N} 10.0.0.1`,
          `add ${N} 10.0.0.3`,
          `create ${M} hash:net family inet maxelem 65536 bucketsize 12`,
          `create ${L} list:set size 8`,
          `add ${L} ${M}`,
          '',
        ].join('\n'),
      );
    });

    it('-exist: re-adding a CIDR with or without nomatch flips the flag (one kernel entry)', async () => {
      begin();
      const N = n('net');
      await restoreOk(`create ${N} hash:net`, `add ${N} 10.2.0.0/16`, `add ${N} 10.3.0.0/16 nomatch`);
      await restoreOk(`add ${N} 10.2.0.0/16 nomatch`, `add ${N} 10.3.0.0/16`);
      expect(canonicalSave(await saveText(), ours)[0]?.members).toEqual(['10.2.0.0/16 nomatch', '10.3.0.0/16']);
    });

    it('-exist: a create with another type or maxelem still fails with set-exists at its line; the batch before it is applied', async () => {
      begin();
      const N = n('net');
      await restoreOk(`create ${N} hash:net`);
      const r = await restore(`add ${N} 10.0.0.1`, `add ${N} 10.0.0.2`, `create ${N} hash:ip,port`, `add ${N} 10.0.0.3`);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(lineErrorPattern(3, 'Set cannot be created: set with the same name already exists'));
      expect(classify(r, 'create')).toMatchObject({ kind: 'set-exists', side: 'kernel', line: 3 });
      expect(canonicalSave(await saveText(), ours)[0]?.members).toEqual(['10.0.0.1', '10.0.0.2']);

      const m = await restore(`create ${N} hash:net maxelem 1024`);
      expect(m.exitCode).toBe(1);
      expect(m.stderr).toMatch(lineErrorPattern(1, 'Set cannot be created: set with the same name already exists'));
      expect(canonicalSave(await saveText(), ours)[0]).toMatchObject({ type: 'hash:net', options: 'family inet maxelem 65536 bucketsize 12' });
    });

    it('a missing set on an add line is a userspace error: exit 1, its line number, the pending batch lost, the create before it kept', async () => {
      begin();
      const [A, B] = [n('a'), n('b')];
      const r = await restore(`create ${A} hash:net`, `add ${A} 10.0.0.1`, `add ${A} 10.0.0.2`, `add ${n('missing')} 10.0.0.3`, `create ${B} hash:net`);
      expect(r.exitCode).toBe(1);
      expect(r.signal).toBeUndefined();
      expect(r.stderr).toMatch(lineErrorPattern(4, 'The set with the given name does not exist'));
      expect(classify(r, 'add')).toMatchObject({ kind: 'set-missing', side: 'userspace', line: 4, transient: false });
      expect(await state()).toBe(`create ${A} hash:net family inet maxelem 65536 bucketsize 12\n`);
    });

    it('a parse error loses only the pending batch: batches sent before another command survive', async () => {
      begin();
      const [A, B] = [n('a'), n('b')];
      const r = await restore(`create ${A} hash:net`, `add ${A} 10.0.0.1`, `create ${B} hash:net`, `add ${A} 10.0.0.2`, `add ${A} 10.0.0.300`);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(lineErrorPattern(5, 'Syntax error: cannot parse 10.0.0.300: resolving to IPv4 address failed'));
      expect(classify(r, 'add')).toMatchObject({ kind: 'syntax', side: 'userspace', line: 5 });
      expect(await state()).toBe(
        [
          `create ${A} hash:net family inet maxelem 65536 bucketsize 12`,
          `add ${A} 10.0.0.1`,
          `create ${B} hash:net family inet maxelem 65536 bucketsize 12`,
          '',
        ].join('\n'),
      );
    });

    it('line numbers count comment and blank lines', async () => {
      begin();
      const A = n('a');
      const r = await restore('# a comment', '', `create ${A} hash:net`, `add ${n('missing')} 10.0.0.1`);
      expect(r.stderr).toMatch(lineErrorPattern(4, 'The set with the given name does not exist'));
      expect(await names()).toEqual([A]);
    });

    it('a kernel error applies the batch up to the failing element (list:set member missing; hash full)', async () => {
      begin();
      const [L, M, F] = [n('list'), n('member'), n('full')];
      const r = await restore(`create ${L} list:set`, `create ${M} hash:net`, `add ${M} 10.0.0.1`, `add ${M} 10.0.0.2`, `add ${L} ${M}`, `add ${L} ${n('missing')}`);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(lineErrorPattern(6, 'Set to be added/deleted/tested as element does not exist.'));
      expect(classify(r, 'add')).toMatchObject({ kind: 'member-set-missing', side: 'kernel', line: 6 });
      expect(await state()).toBe(
        [
          `create ${M} hash:net family inet maxelem 65536 bucketsize 12`,
          `add ${M} 10.0.0.1`,
          `add ${M} 10.0.0.2`,
          `create ${L} list:set size 8`,
          `add ${L} ${M}`,
          '',
        ].join('\n'),
      );

      const f = await restore(`create ${F} hash:net maxelem 2`, `add ${F} 10.0.0.1`, `add ${F} 10.0.0.2`, `add ${F} 10.0.0.3`, `add ${F} 10.0.0.4`);
      expect(f.exitCode).toBe(1);
      expect(f.stderr).toMatch(lineErrorPattern(4, 'Hash is full, cannot add more elements'));
      expect(classify(f, 'add')).toMatchObject({ kind: 'hash-full', side: 'kernel', line: 4 });
      expect(canonicalSave(await saveText(), (s) => s === F)[0]?.members).toEqual(['10.0.0.1', '10.0.0.2']);
    });

    it('long add runs go in 4096-byte batches: a userspace error after 200 host adds keeps the first full batch (167)', async () => {
      begin();
      const A = n('run');
      const adds = Array.from({ length: 200 }, (_, i) => `add ${A} 10.0.${i >> 8}.${i & 255}`);
      const r = await restore(`create ${A} hash:net`, ...adds, `add ${n('missing')} 10.9.9.9`);
      expect(r.stderr).toMatch(lineErrorPattern(202, 'The set with the given name does not exist'));
      expect((await headers()).get(A)?.entries).toBe(167);
    });

    it('destroying a set held by a list:set fails with set-in-use (kernel side); list -t counts the reference', async () => {
      begin();
      const [M, L] = [n('member'), n('list')];
      await restoreOk(`create ${M} hash:net`, `create ${L} list:set`, `add ${L} ${M}`);
      expect((await headers()).get(M)?.references).toBe(1);
      const r = await restore(`add ${M} 10.0.0.1`, `destroy ${M}`);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(lineErrorPattern(2, 'Set cannot be destroyed: it is in use by a kernel component'));
      expect(classify(r, 'destroy')).toMatchObject({ kind: 'set-in-use', side: 'kernel', line: 2 });
      expect(await names()).toEqual([M, L]);
      expect(canonicalSave(await saveText(), (s) => s === M)[0]?.members).toEqual(['10.0.0.1']);
      await restoreOk(`destroy ${L}`, `destroy ${M}`);
      expect(await names()).toEqual([]);
    });

    it('destroying a set referenced from outside ipset fails with set-in-use until the reference goes', async (ctx) => {
      begin();
      if (fixture?.reference === undefined || fixture.unreference === undefined) {
        ctx.skip('the fixture has no reference()/unreference()');
        return;
      }
      const M = n('matched');
      await restoreOk(`create ${M} hash:net`, `add ${M} 10.0.0.1`);
      await reference(M);
      expect((await headers()).get(M)?.references).toBe(1);
      const r = await restore(`flush ${M}`, `destroy ${M}`);
      expect(r.stderr).toMatch(lineErrorPattern(2, 'Set cannot be destroyed: it is in use by a kernel component'));
      expect(classify(r, 'destroy')).toMatchObject({ kind: 'set-in-use', side: 'kernel', line: 2 });
      expect(await state()).toBe(`create ${M} hash:net family inet maxelem 65536 bucketsize 12\n`);
      await unreference(M);
      expect((await headers()).get(M)?.references).toBe(0);
      await restoreOk(`destroy ${M}`);
      expect(await names()).toEqual([]);
    });

    it('a parameter problem exits 2 with no line number and the Try-help line', async () => {
      begin();
      const A = n('a');
      const r = await restore(`create ${A} hash:net`, `add ${A} 10.0.0.1`, 'foo bar');
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^${VERSION}No command specified: unknown argument foo\\nTry \`ipset help' for more information\\.\\n$`));
      const c = classify(r);
      expect(c).toMatchObject({ kind: 'parameter', side: 'userspace' });
      expect(c.line).toBeUndefined();
      expect(await state()).toBe(`create ${A} hash:net family inet maxelem 65536 bucketsize 12\n`);
    });

    it('empty input and comment-only input succeed silently', async () => {
      begin();
      expect(await port().restore('')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      expect(await port().restore('# nothing\n\n')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    });

    it('list -n prints names in slot order: hash sets first, then lists; a destroyed slot is reused', async () => {
      begin();
      const [L, A, B, C, D, E] = ['list', 'a', 'b', 'c', 'd', 'e'].map(n) as [string, string, string, string, string, string];
      await restoreOk(`create ${L} list:set`, `create ${A} hash:net`, `create ${B} hash:net`, `create ${C} hash:ip,port`, `create ${D} hash:net`);
      expect(await names()).toEqual([A, B, C, D, L]);
      await restoreOk(`destroy ${B}`, `create ${E} hash:net`);
      expect(await names()).toEqual([A, E, C, D, L]);
      const r = await port().listNames();
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.split('\n').filter((l) => l.startsWith(prefix))).toEqual([A, E, C, D, L]);
    });

    it('list -t prints each set header with References and Number of entries, and no members', async () => {
      begin();
      const [A, L] = [n('a'), n('list')];
      await restoreOk(`create ${A} hash:net`, `add ${A} 10.0.0.1`, `add ${A} 10.0.0.0/24`, `create ${L} list:set`, `add ${L} ${A}`);
      const text = await headersText();
      expect(text).not.toMatch(/^Members:/m);
      expect(text).toMatch(new RegExp(`^Name: ${escape(A)}\\nType: hash:net\\nRevision: \\d+\\nHeader: family inet hashsize \\d+ maxelem 65536 bucketsize 12 initval 0x[0-9a-f]+\\nSize in memory: \\d+\\nReferences: 1\\nNumber of entries: 2$`, 'm'));
      expect(text).toMatch(new RegExp(`^Name: ${escape(L)}\\nType: list:set\\nRevision: \\d+\\nHeader: size 8\\nSize in memory: \\d+\\nReferences: 0\\nNumber of entries: 1$`, 'm'));
      const hs = await headers();
      expect(hs.get(A)).toMatchObject({ type: 'hash:net', references: 1, entries: 2 });
      expect(hs.get(L)).toMatchObject({ type: 'list:set', header: 'size 8', references: 0, entries: 1 });
    });

    it('save prints create lines then add lines, hash sets before lists, and parses with parseSave without problems', async () => {
      begin();
      const [L, N, P] = [n('list'), n('net'), n('ipp')];
      await restoreOk(
        `create ${L} list:set`,
        `create ${N} hash:net`,
        `create ${P} hash:ip,port`,
        `add ${N} 10.0.0.0/8`,
        `add ${N} 10.2.0.0/16 nomatch`,
        `add ${P} 10.0.0.1,udp:53`,
        `add ${L} ${P}`,
        `add ${L} ${N}`,
      );
      const text = await saveText();
      const snapshot = parseSave(text);
      expect(snapshot.problems).toEqual([]);
      const mine = snapshot.sets.filter((s) => ours(s.name));
      expect(mine.map((s) => [s.name, s.type])).toEqual([
        [N, 'hash:net'],
        [P, 'hash:ip,port'],
        [L, 'list:set'],
      ]);
      expect([...mine[0]!.members].sort()).toEqual(['10.0.0.0/8', '10.2.0.0/16 nomatch']);
      expect([...mine[1]!.members]).toEqual(['10.0.0.1,udp:53']);
      // list:set members keep their list order.
      expect([...mine[2]!.members]).toEqual([P, N]);
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.split('\n').filter((l) => l.split(' ')[1]?.startsWith(prefix));
      expect(lines.every((l) => /^(create|add) \S+ \S/.test(l))).toBe(true);
      expect(lines.findIndex((l) => l.startsWith(`add ${N} `))).toBeGreaterThan(lines.indexOf(lines.find((l) => l.startsWith(`create ${N} `))!));
    });

    it('save with a stdout taker either hands over every byte through it (streamed, stdout empty) or returns the whole text', async () => {
      begin();
      const N = n('net');
      await restoreOk(`create ${N} hash:net`, ...Array.from({ length: 3000 }, (_, i) => `add ${N} 10.1.${i >> 8}.${i & 255}`));
      const pieces: string[] = [];
      const r = await port().save({ stdout: (piece) => pieces.push(piece) });
      expect(r.exitCode, `ipset save failed: ${r.stderr}`).toBe(0);
      const text = r.streamed === true ? pieces.join('') : r.stdout;
      if (r.streamed === true) expect(r.stdout).toBe('');
      else expect(pieces).toEqual([]);
      expect(canonicalSaveText(text, ours)).toBe(await state());
      expect(parseSave(text).sets.find((s) => s.name === N)?.members.length).toBe(3000);
    });
  });
}
