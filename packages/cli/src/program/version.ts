/**
 * `ipsets --version [--json]`: this command's version and the `ipset` it finds (its
 * version and netlink protocol), as `ipset --version` prints its protocol too. The
 * JSON form is for tooling that checks a node's versions.
 */
import type { CliIo } from '../cli-io.js';
import { EXIT } from '../cli-io.js';

/** Options of {@link versionCommand}. */
export interface VersionOptions {
  /** This command's version. */
  version: string;
  json?: boolean;
  /** The `ipset` to ask (default `ipset` on PATH). */
  ipsetPath?: string;
}

/** Prints the versions; exit 0 (an ipset that is missing is reported, not an error: plan and demo need none). */
export async function versionCommand(options: VersionOptions, io: CliIo): Promise<number> {
  const { readIpsetVersion } = await import('@ipsets/exec-linux');
  const ipset = await readIpsetVersion(options.ipsetPath === undefined ? {} : { ipsetPath: options.ipsetPath });
  if (options.json === true) {
    io.stdout.write(JSON.stringify({ schemaVersion: 1, version: options.version, node: process.version, ipset }, null, 2) + '\n');
    return EXIT.ok;
  }
  const found =
    ipset.version === undefined
      ? `ipset: unknown (${ipset.problem ?? 'no version'})`
      : `ipset v${ipset.version}${ipset.protocol === undefined ? '' : `, protocol version: ${ipset.protocol}`} (${ipset.path.includes('/') ? ipset.path : `${ipset.path} on PATH`}${ipset.problem === undefined ? '' : `; ${ipset.problem}`})`;
  io.stdout.write(`ipsets ${options.version}\n${found}\n`);
  return EXIT.ok;
}
