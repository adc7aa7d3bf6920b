import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IpsetsError, isIpsetsError, parseSave, planReconcile, runRestoreSession } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';
import { createLinuxPort, DEFAULT_MAX_OUTPUT_BYTES } from '../../src/linux-port.js';
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS } from '../../src/defaults.js';
import { alive, makeFakeBin } from '../helpers/fake-bin.js';
import type { FakeBin } from '../helpers/fake-bin.js';

let bin: FakeBin;
beforeEach(async () => {
  bin = await makeFakeBin();
});
afterEach(async () => {
  await bin.cleanup();
});

async function rejection(promise: Promise<unknown>): Promise<IpsetsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IpsetsError);
  return error as IpsetsError;
}

describe('createLinuxPort: commands', () => {
  it('restore runs `ipset -exist restore` with the text on stdin, not in argv', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const text = '-N azure-npm-1 --exist nethash\n-A azure-npm-1 10.0.0.1\n';
    const result = await port.restore(text);
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await bin.calls()).toEqual([{ argv: ['-exist', 'restore'], stdin: text }]);
  });

  it('save, listNames and listHeaders run `save`, `list -n`, `list -t` and return stdout unchanged', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    await bin.behave({ stdout: 'create a hash:net family inet hashsize 1024 maxelem 65536\nadd a 10.0.0.0/8\n' });
    const saved = await port.save();
    expect(saved.stdout).toBe('create a hash:net family inet hashsize 1024 maxelem 65536\nadd a 10.0.0.0/8\n');
    await bin.behave({ stdout: 'a\nb\n' });
    expect((await port.listNames()).stdout).toBe('a\nb\n');
    await bin.behave({ stdout: 'Name: a\nType: hash:net\n' });
    expect((await port.listHeaders()).stdout).toBe('Name: a\nType: hash:net\n');
    expect((await bin.calls()).map((c) => c.argv)).toEqual([['save'], ['list', '-n'], ['list', '-t']]);
  });

  it('streams a 1,000,000-line (~30 MB) restore text to stdin intact', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const lines: string[] = [];
    for (let i = 0; i < 1_000_000; i += 1) lines.push(`-A azure-npm-123456789 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(29_000_000);
    const result = await port.restore(text);
    expect(result.exitCode).toBe(0);
    const [call] = await bin.calls();
    expect(call?.argv).toEqual(['-exist', 'restore']);
    expect(call?.stdin.length).toBe(text.length);
    expect(call?.stdin === text).toBe(true);
  });

  it('a child that exits without reading a 30 MB stdin resolves with its exit code (EPIPE is not an error)', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const stderr = "ipset v7.17: No command specified: unknown argument bogus\nTry `ipset help' for more information.\n";
    await bin.behave({ noRead: true, exitCode: 2, stderr });
    const text = `bogus\n${'-A azure-npm-123456789 10.0.0.1\n'.repeat(1_000_000)}`;
    await expect(port.restore(text)).resolves.toEqual({ exitCode: 2, stdout: '', stderr });
  });

  it('keeps multi-byte characters intact across stdin chunk boundaries', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    // Lines of 3-byte and 4-byte (surrogate pair) characters straddle the 1 MiB chunk size.
    const text = `${'é€😀 line\n'.repeat(300_000)}`;
    await port.restore(text);
    expect((await bin.calls())[0]?.stdin === text).toBe(true);
  });

  it('passes env to the child (merged over process.env)', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, env: { IPSETS_PORT_TEST: 'from-env' } });
    await bin.behave({ envVar: 'IPSETS_PORT_TEST' });
    await port.listNames();
    expect((await bin.calls())[0]?.env).toBe('from-env');
  });
});

describe('createLinuxPort: non-zero exits are data', () => {
  it('resolves a restore error with exit code 1 and the exact stderr', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const stderr = 'ipset v7.17: Error in line 2: The set with the given name does not exist\n';
    await bin.behave({ stderr, exitCode: 1 });
    await expect(port.restore('-N a --exist nethash\n-A b 1.2.3.4\n')).resolves.toEqual({ exitCode: 1, stdout: '', stderr });
  });

  it('resolves a parameter problem with exit code 2', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const stderr = "ipset v7.17: No command specified: unknown argument foo\nTry `ipset help' for more information.\n";
    await bin.behave({ stderr, exitCode: 2 });
    await expect(port.restore('foo\n')).resolves.toEqual({ exitCode: 2, stdout: '', stderr });
  });

  it('resolves a crash with the signal and exit code 128+n', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    await bin.behave({ killSelf: 'SEGV' });
    await expect(port.restore('-A a 10.0.0.1,icmpv6:ping\n')).resolves.toEqual({
      exitCode: 139,
      stdout: '',
      stderr: '',
      signal: 'SIGSEGV',
    });
  });
});

describe('createLinuxPort: timeouts and aborts', () => {
  it('kills a restore that runs past timeoutMs and rejects with TIMEOUT', async () => {
    // Defect pinned: under load the 300 ms limit used to fire before the fake had even
    // written its pid, so the test could not find the child it expected dead. The limit's
    // timer is now fake and fires only once the fake reports that it runs.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const port = createLinuxPort({ ipsetPath: bin.ipset, timeoutMs: 300 });
      await bin.behave({ sleep: 30 });
      const pending = rejection(port.restore('-A a 10.0.0.1\n'));
      let pid: number | undefined;
      // (An empty pid file, caught between its creation and the write, reads as 0.)
      while (!((pid = await bin.lastPid()) !== undefined && pid > 0)) await new Promise((resolve) => setImmediate(resolve));
      expect(alive(pid)).toBe(true);
      vi.advanceTimersByTime(300);
      const error = await pending;
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toContain('timeoutMs 300');
      expect(alive(pid)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('restores and reads have separate limits, each named in its TIMEOUT', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, restoreTimeoutMs: 400, readTimeoutMs: 200 });
    await bin.behave({ sleep: 30 });
    const read = await rejection(port.save());
    expect(read.code).toBe('TIMEOUT');
    expect(read.message).toContain('ran longer than readTimeoutMs 200 ms');
    const restore = await rejection(port.restore('-A a 10.0.0.1\n'));
    expect(restore.message).toContain('ran longer than restoreTimeoutMs 400 ms and was killed; raise restoreTimeoutMs');
    // Without options, a hang still ends: every command has a limit by default.
    expect([DEFAULT_RESTORE_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS]).toEqual([300_000, 60_000]);
  });

  it('a restore that hangs half-way ends the session with TIMEOUT and names the sets it left uncertain', async () => {
    // Defect pinned: a hung `ipset restore` used to wait forever with no report.
    const port = createLinuxPort({ ipsetPath: bin.ipset, restoreTimeoutMs: 300 });
    await bin.behave({ sleep: 30 });
    const desired: DesiredState = {
      owner: 'azure-npm-',
      sets: [
        { name: 'azure-npm-1', spec: 'nethash', members: ['10.0.0.1', '10.0.0.2'] },
        { name: 'azure-npm-2', spec: 'nethash', members: ['10.0.1.1'] },
      ],
    };
    const plan = planReconcile(desired, parseSave(''), []);
    const started = performance.now();
    const report = await runRestoreSession(plan, port);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report.converged).toBe(false);
    expect(report.fatal?.code).toBe('TIMEOUT');
    expect(report.fatal?.message).toContain('restoreTimeoutMs 300');
    expect(report.linesApplied).toBe(0);
    expect(report.failedSets).toEqual(['azure-npm-1', 'azure-npm-2']);
    expect(alive((await bin.lastPid())!)).toBe(false);
  });

  it('kills a restore when its signal aborts and rejects with ABORTED', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    await bin.behave({ sleep: 30 });
    const controller = new AbortController();
    const pending = port.restore('-A a 10.0.0.1\n', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 200);
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.message).toContain('shutting down');
    expect(alive((await bin.lastPid())!)).toBe(false);
  });

  it('rejects with ABORTED without starting ipset when the signal is already aborted', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    const error = await rejection(port.save({ signal: AbortSignal.abort() }));
    expect(error.code).toBe('ABORTED');
    expect(await bin.calls()).toEqual([]);
  });

  it('Infinity turns a limit off', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, restoreTimeoutMs: Infinity, readTimeoutMs: Infinity });
    await bin.behave({ stdout: 'x\n' });
    await expect(port.listNames()).resolves.toEqual({ exitCode: 0, stdout: 'x\n', stderr: '' });
  });

  it('a call that finishes in time is unaffected by timeoutMs', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, timeoutMs: 10_000 });
    await bin.behave({ stdout: 'x\n' });
    await expect(port.listNames()).resolves.toEqual({ exitCode: 0, stdout: 'x\n', stderr: '' });
  });
});

describe('createLinuxPort: ipset unavailable', () => {
  it('a missing binary is IPSET_UNAVAILABLE saying what to do, not an execa error', async () => {
    const port = createLinuxPort({ ipsetPath: join(bin.dir, 'no-such-ipset') });
    const error = await rejection(port.save());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toMatch(/ipset binary ".*no-such-ipset" was not found; install ipset .* or pass ipsetPath$/);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toMatch(/execa|Command failed/i);
  });

  it('a binary that is not executable is IPSET_UNAVAILABLE', async () => {
    const path = join(bin.dir, 'not-executable');
    await writeFile(path, '#!/bin/sh\nexit 0\n');
    await chmod(path, 0o644);
    const error = await rejection(createLinuxPort({ ipsetPath: path }).listNames());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toContain('could not be executed (EACCES)');
  });

  it('"Operation not permitted" (not root) is IPSET_UNAVAILABLE asking for root or CAP_NET_ADMIN', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset });
    await bin.behave({ stderr: 'ipset v7.17: Kernel error received: Operation not permitted\n', exitCode: 1 });
    const error = await rejection(port.listNames());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toContain('run as root or grant CAP_NET_ADMIN');
    await bin.behave({ stderr: 'ipset v7.17: Error in line 1: Kernel error received: Operation not permitted\n', exitCode: 1 });
    expect((await rejection(port.restore('-N a --exist nethash\n'))).code).toBe('IPSET_UNAVAILABLE');
  });
});

describe('createLinuxPort: netns', () => {
  it('runs through `ip netns exec NAME ipset …`', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, ipPath: bin.ip, netns: 'blue' });
    await bin.behave({ stdout: 'a\n' });
    expect((await port.listNames()).stdout).toBe('a\n');
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(join(bin.dir, 'ip-argv'), 'utf8')).split('\n').slice(0, -1)).toEqual([
      'netns',
      'exec',
      'blue',
      bin.ipset,
      'list',
      '-n',
    ]);
    await port.restore('-F a\n');
    expect((await bin.calls())[1]).toEqual({ argv: ['-exist', 'restore'], stdin: '-F a\n' });
  });

  it('an unknown namespace is IPSET_UNAVAILABLE naming it and how to create it', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, ipPath: bin.ip, netns: 'missing' });
    const error = await rejection(port.save());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toBe(
      'network namespace "missing" cannot be opened (No such file or directory); create it with `ip netns add missing` or fix the netns option',
    );
  });

  it('a missing ipset inside the namespace is IPSET_UNAVAILABLE', async () => {
    const port = createLinuxPort({ ipsetPath: join(bin.dir, 'nope'), ipPath: bin.ip, netns: 'blue' });
    const error = await rejection(port.save());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toContain('was not found inside network namespace "blue"');
  });

  it('a missing `ip` binary is IPSET_UNAVAILABLE naming iproute2', async () => {
    const port = createLinuxPort({ ipsetPath: bin.ipset, ipPath: join(bin.dir, 'no-ip'), netns: 'blue' });
    const error = await rejection(port.save());
    expect(error.code).toBe('IPSET_UNAVAILABLE');
    expect(error.message).toContain('install iproute2');
  });
});

describe('createLinuxPort: options', () => {
  it.each([
    [{ netns: 'a/b' }, 'netns "a/b"'],
    [{ netns: '' }, 'netns ""'],
    [{ timeoutMs: 0 }, 'timeoutMs "0"'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs "NaN"'],
    [{ restoreTimeoutMs: -5 }, 'restoreTimeoutMs "-5"'],
    [{ readTimeoutMs: 2 ** 31 }, 'readTimeoutMs "2147483648"'],
    [{ ipsetPath: '' }, 'ipsetPath ""'],
    [{ maxOutputBytes: 0 }, 'maxOutputBytes "0"'],
    [{ restoreDir: '' }, 'restoreDir ""'],
  ])('rejects %o with INVALID_ARGUMENT', (options, quoted) => {
    let error: unknown;
    try {
      createLinuxPort(options);
    } catch (e) {
      error = e;
    }
    expect(isIpsetsError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain(quoted);
  });
});

describe('createLinuxPort: bounded echoes', () => {
  it('a 200 MB stderr is kept as its head and tail with the dropped byte count, and read in bounded memory', async () => {
    // Defect pinned: ipset's whole stderr was kept and copied into the apply report (200 MB of stderr → a 200 MB report, 1.5 GB RSS).
    const script = join(bin.dir, 'noisy-ipset');
    await writeFile(
      script,
      `#!/bin/sh
cat > /dev/null
echo 'ipset v7.17: Error in line 1: Syntax error: first' >&2
head -c 200000000 /dev/zero | tr '\\0' x >&2
printf '\\nlast line\\n' >&2
exit 1
`,
    );
    await chmod(script, 0o755);
    const port = createLinuxPort({ ipsetPath: script });
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await port.restore('-A a 10.0.0.1\n').finally(() => clearInterval(sampler));
    expect(result.exitCode).toBe(1);
    expect(Buffer.byteLength(result.stderr)).toBeLessThan(64 * 1024);
    expect(result.stderr.startsWith('ipset v7.17: Error in line 1: Syntax error: first\n')).toBe(true);
    expect(result.stderr.endsWith('\nlast line\n')).toBe(true);
    const printed = Buffer.byteLength('ipset v7.17: Error in line 1: Syntax error: first\n') + 200_000_000 + '\nlast line\n'.length;
    const dropped = printed - 8 * 1024 - 2 * 1024;
    expect(result.stderr).toContain(`\n[… ${dropped} bytes dropped …]\n`);
    // Not 200 MB more (or the 1.5 GB it took): what is kept, and stream buffers.
    expect(peak - rssBefore).toBeLessThan(100 * 1024 * 1024);
    // The recovery session still reads ipset's own error from the head.
    const plan = planReconcile({ owner: 'azure-npm-', sets: [{ name: 'azure-npm-1', spec: 'nethash', members: ['10.0.0.1'] }] }, parseSave(''), []);
    const report = await runRestoreSession(plan, port, { maxAttempts: 1 });
    expect(JSON.stringify(report).length).toBeLessThan(64 * 1024);
  }, 60_000);

  it('a save that prints more than maxOutputBytes is stopped with KERNEL_READ_FAILED naming the option', async () => {
    // Defect pinned: a 3 GB `ipset save` was read whole (32 s, 3.8 GB).
    const script = join(bin.dir, 'huge-save');
    await writeFile(script, `#!/bin/sh\nexec head -c 50000000 /dev/zero\n`);
    await chmod(script, 0o755);
    const port = createLinuxPort({ ipsetPath: script, maxOutputBytes: 1024 * 1024 });
    const error = await rejection(port.save());
    expect(error.code).toBe('KERNEL_READ_FAILED');
    expect(error.message).toBe(`\`${script} save\` printed more than maxOutputBytes 1048576 bytes and was stopped; raise maxOutputBytes if the kernel really holds that much`);
    // The default: 256 MiB, about 4 million members.
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(256 * 1024 * 1024);
    await bin.behave({ stdout: 'create a hash:net\n' });
    await expect(createLinuxPort({ ipsetPath: bin.ipset, maxOutputBytes: 18 }).save()).resolves.toMatchObject({ exitCode: 0, stdout: 'create a hash:net\n' });
  });
});

describe('createLinuxPort: a save handed over as it arrives (PortCallOptions.stdout)', () => {
  /** A fake ipset whose save prints `lines` add lines (with a two-byte character in each) in many pipe writes. */
  async function printer(name: string, lines: number): Promise<string> {
    const script = join(bin.dir, name);
    await writeFile(script, `#!/bin/sh\necho 'create s hash:net'\ni=0\nwhile [ $i -lt ${lines} ]; do echo "add s 10.0.$((i / 256 % 256)).$((i % 256)) comment \\"é$i\\""; i=$((i + 1)); done\n`);
    await chmod(script, 0o755);
    return script;
  }

  it('hands over exactly the bytes a plain save returns, in order, and resolves streamed with an empty stdout', async () => {
    const script = await printer('stream-save', 20_000);
    const port = createLinuxPort({ ipsetPath: script });
    const whole = await port.save();
    const pieces: string[] = [];
    const streamed = await port.save({ stdout: (piece) => pieces.push(piece) });
    expect(streamed).toMatchObject({ exitCode: 0, stdout: '', streamed: true });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(whole.stdout);
    expect(whole.streamed).toBeUndefined();
    // Only save streams: the other reads return their stdout whole.
    const listed = await port.listNames({ stdout: () => pieces.push('never') });
    expect(listed.streamed).toBeUndefined();
    expect(pieces).not.toContain('never');
  }, 60_000);

  it('a streamed save that prints more than maxOutputBytes is stopped with the buffered read\'s KERNEL_READ_FAILED', async () => {
    const script = join(bin.dir, 'huge-stream-save');
    await writeFile(script, `#!/bin/sh\nexec head -c 50000000 /dev/zero\n`);
    await chmod(script, 0o755);
    let handed = 0;
    const error = await rejection(createLinuxPort({ ipsetPath: script, maxOutputBytes: 1024 * 1024 }).save({ stdout: (piece) => (handed += piece.length) }));
    expect(error.code).toBe('KERNEL_READ_FAILED');
    expect(error.message).toBe(`\`${script} save\` printed more than maxOutputBytes 1048576 bytes and was stopped; raise maxOutputBytes if the kernel really holds that much`);
    expect(handed).toBeLessThanOrEqual(1024 * 1024);
  });

  it('a taker that throws ends the save with its error, and ipset is stopped', async () => {
    const script = join(bin.dir, 'endless-save');
    await writeFile(script, `#!/bin/sh\nexec yes 'add s 10.0.0.1'\n`);
    await chmod(script, 0o755);
    const boom = new Error('the taker failed');
    await expect(createLinuxPort({ ipsetPath: script }).save({ stdout: () => {
      throw boom;
    } })).rejects.toBe(boom);
  });
});
