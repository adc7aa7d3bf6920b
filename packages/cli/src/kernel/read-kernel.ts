/**
 * Reading a kernel for a plan: `ipset save` (the sets and members) and `ipset list
 * -t` (reference counts), each refused with `KERNEL_READ_FAILED` when ipset fails,
 * never read as an empty kernel.
 */
import { IpsetsError, parseListHeaders, parseSave } from '@ipsets/core';
import type { CommandResult, IpsetPort, SaveSnapshot, SetHeader } from '@ipsets/core';

/** Most of ipset's stderr a message quotes. */
const STDERR_LIMIT = 500;

function checked(result: CommandResult, command: string): string {
  if (result.exitCode !== 0) {
    throw new IpsetsError('KERNEL_READ_FAILED', `${command} failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, STDERR_LIMIT)}`, {
      details: { command, exitCode: result.exitCode },
    });
  }
  return result.stdout;
}

/**
 * The text of `ipset save`.
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when ipset fails.
 */
export async function readSaveText(port: IpsetPort): Promise<string> {
  return checked(await port.save(), 'ipset save');
}

/**
 * The kernel's set headers (`ipset list -t`: names, reference counts; no members).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when ipset fails.
 */
export async function readHeaders(port: IpsetPort): Promise<SetHeader[]> {
  return parseListHeaders(checked(await port.listHeaders(), 'ipset list -t'));
}

/**
 * The kernel's save, parsed, and its set headers (reference counts).
 *
 * @throws IpsetsError `KERNEL_READ_FAILED` when either read fails.
 */
export async function readKernel(port: IpsetPort): Promise<{ snapshot: SaveSnapshot; headers: SetHeader[] }> {
  const snapshot = parseSave(await readSaveText(port));
  return { snapshot, headers: await readHeaders(port) };
}
