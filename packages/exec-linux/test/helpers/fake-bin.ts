/**
 * A fake `ipset` (and `ip`) shell script in a temp dir, for port tests without root:
 * it records each call's argv and stdin, then prints canned output, exits with a canned
 * code, sleeps, or kills itself with a signal.
 */
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the fake prints and does. */
export interface FakeBehaviour {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Seconds to sleep (after reading stdin) before answering; `exec`s sleep so a kill ends it. */
  sleep?: number;
  /** Signal the script sends itself after printing (e.g. `SEGV`). */
  killSelf?: string;
  /** Also record this environment variable's value. */
  envVar?: string;
  /** Exit without reading stdin (as ipset does after an error on line 1). */
  noRead?: boolean;
}

/** One recorded call. */
export interface FakeCall {
  argv: string[];
  stdin: string;
  env?: string;
}

/** A fake binary in its own temp dir. */
export interface FakeBin {
  readonly dir: string;
  /** Path of the fake `ipset`. */
  readonly ipset: string;
  /** Path of a fake `ip` that records `netns exec NAME …` and then runs the rest (or fails like ip for namespace `missing`). */
  readonly ip: string;
  behave(behaviour: FakeBehaviour): Promise<void>;
  calls(): Promise<FakeCall[]>;
  /** pid of the last started fake ipset. */
  lastPid(): Promise<number | undefined>;
  cleanup(): Promise<void>;
}

const IPSET_SCRIPT = `#!/bin/sh
dir=$(dirname "$0")
n=$(ls "$dir" | grep -c '^argv\\.')
n=$((n + 1))
echo $$ > "$dir/pid"
printf '%s\\n' "$@" > "$dir/argv.$n"
if [ -f "$dir/noread" ]; then : > "$dir/stdin.$n"; else cat > "$dir/stdin.$n"; fi
if [ -f "$dir/envvar" ]; then name=$(cat "$dir/envvar"); eval "printf '%s' \\"\\$$name\\"" > "$dir/env.$n"; fi
[ -f "$dir/stdout" ] && cat "$dir/stdout"
[ -f "$dir/stderr" ] && cat "$dir/stderr" >&2
if [ -f "$dir/sleep" ]; then exec sleep "$(cat "$dir/sleep")"; fi
if [ -f "$dir/kill" ]; then kill -"$(cat "$dir/kill")" $$; fi
exit "$(cat "$dir/exit" 2>/dev/null || echo 0)"
`;

const IP_SCRIPT = `#!/bin/sh
dir=$(dirname "$0")
printf '%s\\n' "$@" > "$dir/ip-argv"
if [ "$1" != netns ] || [ "$2" != exec ]; then echo "fake ip: unexpected $*" >&2; exit 99; fi
if [ "$3" = missing ]; then echo "Cannot open network namespace \\"$3\\": No such file or directory" >&2; exit 255; fi
shift 3
if [ ! -x "$1" ]; then echo "exec of \\"$1\\" failed: No such file or directory" >&2; exit 1; fi
exec "$@"
`;

/** Creates a fake `ipset` and `ip` in a fresh temp dir. */
export async function makeFakeBin(): Promise<FakeBin> {
  const dir = await mkdtemp(join(tmpdir(), 'ipsets-fake-bin-'));
  const ipset = join(dir, 'ipset');
  const ip = join(dir, 'ip');
  await writeFile(ipset, IPSET_SCRIPT);
  await writeFile(ip, IP_SCRIPT);
  await chmod(ipset, 0o755);
  await chmod(ip, 0o755);
  const files = ['stdout', 'stderr', 'exit', 'sleep', 'kill', 'envvar', 'noread'] as const;
  return {
    dir,
    ipset,
    ip,
    async behave(b) {
      const values: Record<(typeof files)[number], string | undefined> = {
        stdout: b.stdout,
        stderr: b.stderr,
        exit: b.exitCode === undefined ? undefined : String(b.exitCode),
        sleep: b.sleep === undefined ? undefined : String(b.sleep),
        kill: b.killSelf,
        envvar: b.envVar,
        noread: b.noRead === true ? '1' : undefined,
      };
      for (const file of files) {
        const value = values[file];
        if (value === undefined) await rm(join(dir, file), { force: true });
        else await writeFile(join(dir, file), value);
      }
    },
    async calls() {
      const names = (await readdir(dir)).filter((f) => f.startsWith('argv.'));
      const count = names.length;
      const calls: FakeCall[] = [];
      for (let i = 1; i <= count; i += 1) {
        const argv = (await readFile(join(dir, `argv.${i}`), 'utf8')).split('\n').slice(0, -1);
        const stdin = await readFile(join(dir, `stdin.${i}`), 'utf8').catch(() => '');
        const env = await readFile(join(dir, `env.${i}`), 'utf8').catch(() => undefined);
        calls.push({ argv, stdin, ...(env === undefined ? {} : { env }) });
      }
      return calls;
    },
    async lastPid() {
      const text = await readFile(join(dir, 'pid'), 'utf8').catch(() => undefined);
      return text === undefined ? undefined : Number(text.trim());
    },
    async cleanup() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
