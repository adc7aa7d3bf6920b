/**
 * Which `ipset` a node has: `ipset --version` prints `ipset v7.17, protocol version: 7`
 * (the userspace version and the netlink protocol it speaks). The command's
 * `--version` and the agent's build-info metric report it, so the person on call sees
 * what is installed without a shell on the node.
 */
import { execa } from 'execa';

/** What `ipset --version` said. */
export interface IpsetVersion {
  /** The executable asked (a name on `PATH` or a path). */
  readonly path: string;
  /** `7.17`, when the output had it. */
  readonly version?: string;
  /** The netlink protocol version (`7`), when the output had it. */
  readonly protocol?: number;
  /** Why the version is unknown or incomplete (not found, killed, a kernel error as non-root), when it is. */
  readonly problem?: string;
}

/** Options of {@link readIpsetVersion}. */
export interface ReadIpsetVersionOptions {
  /** The `ipset` executable (default `ipset`). */
  ipsetPath?: string;
  /** Kill it after this long (default 5 s). */
  timeoutMs?: number;
}

const VERSION_LINE = /ipset v(\d+(?:\.\d+)*)(?:, protocol version: (\d+))?/;

/**
 * Runs `ipset --version` and reads its answer. Never rejects: an `ipset` that is
 * missing or fails is described in `problem`. Without root, ipset prints its version
 * and then fails its kernel check (`Operation not permitted`): the version is still
 * read, and the problem says so.
 */
export async function readIpsetVersion(options: ReadIpsetVersionOptions = {}): Promise<IpsetVersion> {
  const path = options.ipsetPath ?? 'ipset';
  const result = await execa(path, ['--version'], { reject: false, stdin: 'ignore', timeout: options.timeoutMs ?? 5000, maxBuffer: 64 * 1024 });
  const text = `${String(result.stdout ?? '')}\n${String(result.stderr ?? '')}`;
  const match = VERSION_LINE.exec(text);
  const firstError = String(result.stderr ?? '').trim().split('\n')[0]?.replace(/^ipset v[\d.]+: /, '');
  const problem =
    result.exitCode === undefined
      ? result.code === 'ENOENT'
        ? `${path} was not found`
        : `${path} could not be run: ${result.shortMessage ?? result.code ?? 'unknown error'}`
      : result.exitCode !== 0
        ? `${path} --version exited ${result.exitCode}${firstError ? `: ${firstError}` : ''}`
        : match === null
          ? `${path} --version printed no version`
          : undefined;
  return {
    path,
    ...(match?.[1] === undefined ? {} : { version: match[1] }),
    ...(match?.[2] === undefined ? {} : { protocol: Number(match[2]) }),
    ...(problem === undefined ? {} : { problem }),
  };
}
