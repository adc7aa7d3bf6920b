/**
 * Planted kernel faults. A node's port wraps its fake kernel's port; before the first
 * restore of an apply that the node's generator chose to fault, it arms one fault on
 * the fake kernel with a line picked from the text about to be sent, so that every
 * planted fault lands inside the restore it was meant for:
 *
 * - `userspace`: ipset rejects an add/del line while parsing it (the pending batch
 *   before it is never sent);
 * - `kernel`: the kernel refuses a line (everything before it is applied);
 * - `busy`: the kernel answers "Device or resource busy" to the next batch or two;
 * - `crash`: ipset dies after k lines (SIGKILL, no message).
 */
import type { CommandResult, IpsetPort } from '@ipsets/core';
import { createFakePort } from '@ipsets/fake-kernel';
import type { FakeKernel } from '@ipsets/fake-kernel';
import type { Random } from './prng.js';

/** Kinds of planted faults. */
export type FaultKind = 'userspace' | 'kernel' | 'busy' | 'crash';

/** All kinds, in report order. */
export const FAULT_KINDS: readonly FaultKind[] = ['userspace', 'kernel', 'busy', 'crash'];

/** A port that can plant one fault in the next restore, and counts what it ran. */
export interface FaultPort extends IpsetPort {
  /** Plants a fault of `kind` in the next restore. */
  arm(kind: FaultKind): void;
  /** Restores run, lines sent, and restores that did not exit 0, since the port was made. */
  readonly stats: { restores: number; lines: number; failedRestores: number; lastLines: number };
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function kernelMessage(line: string): string {
  if (line.startsWith('-A ')) return 'Hash is full, cannot add more elements';
  if (line.startsWith('-X ')) return 'Kernel error received: Cannot allocate memory';
  return 'Kernel error received: Cannot allocate memory';
}

/** A fault port over `kernel` that draws line choices from `random`. */
export function createFaultPort(kernel: FakeKernel, random: Random): FaultPort {
  const inner = createFakePort(kernel);
  let armed: FaultKind | undefined;
  const stats = { restores: 0, lines: 0, failedRestores: 0, lastLines: 0 };

  function plant(kind: FaultKind, text: string): void {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    if (kind === 'busy') {
      kernel.busy(random.int(1, 2));
    } else if (kind === 'crash') {
      kernel.crashAfter(random.int(0, Math.max(0, lines.length - 1)));
    } else if (kind === 'userspace') {
      // ipset only catches a bad element in userspace on add/del lines.
      const batched = lines.map((l, i) => (l.startsWith('-A ') || l.startsWith('-D ') ? i : -1)).filter((i) => i >= 0);
      if (batched.length === 0) return;
      const i = random.pick(batched);
      const address = lines[i]!.split(' ')[2]!.split(',')[0]!;
      kernel.failLine(i + 1, { message: `Syntax error: cannot parse ${address}9: resolving to IPv4 address failed`, side: 'userspace' });
    } else {
      const i = random.int(0, lines.length - 1);
      kernel.failLine(i + 1, { message: kernelMessage(lines[i]!), side: 'kernel' });
    }
  }

  return {
    ...inner,
    stats,
    arm(kind) {
      armed = kind;
    },
    async restore(text, options): Promise<CommandResult> {
      if (armed !== undefined) {
        plant(armed, text);
        armed = undefined;
      }
      const n = lineCount(text);
      stats.restores++;
      stats.lines += n;
      stats.lastLines = n;
      const result = await inner.restore(text, options);
      if (result.exitCode !== 0 || result.signal !== undefined) stats.failedRestores++;
      return result;
    },
  };
}
