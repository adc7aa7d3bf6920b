/**
 * Reading one restore line back (its command and set, in the reference syntax or the
 * long forms) and the plausible message a line fault on it carries.
 */
import type { ErrorSide } from '@ipsets/core';

/** A restore line's command, read from the reference syntax or the long forms. */
export function restoreLineOp(line: string): { op: 'create' | 'add' | 'del' | 'flush' | 'destroy' | 'other'; set: string } {
  const words = line.trim().split(/\s+/);
  const set = words[1] ?? '';
  switch (words[0]) {
    case '-N':
    case 'create':
      return { op: 'create', set };
    case '-A':
    case 'add':
      return { op: 'add', set };
    case '-D':
    case 'del':
      return { op: 'del', set };
    case '-F':
    case 'flush':
      return { op: 'flush', set };
    case '-X':
    case 'destroy':
      return { op: 'destroy', set };
    default:
      return { op: 'other', set };
  }
}

/**
 * The message of a line fault: plausible for the line's command and the side, so that
 * what the kernel does (keep or lose the pending batch) matches how
 * `classifyIpsetError` reads the message.
 */
export function faultMessage(line: string, side: ErrorSide, variant: number): string {
  const { op, set } = restoreLineOp(line);
  const member = line.trim().split(/\s+/)[2] ?? '';
  let choices: string[];
  if (side === 'userspace') {
    choices =
      op === 'add' || op === 'del'
        ? ['The set with the given name does not exist', `Syntax error: cannot parse ${member.split(',')[0]}9: resolving to IPv4 address failed`]
        : [`Syntax error: setname '${set}x' is longer than 31 characters`];
  } else {
    switch (op) {
      case 'add':
        choices = ['Hash is full, cannot add more elements', 'Kernel error received: Cannot allocate memory'];
        break;
      case 'create':
        choices = ['Set cannot be created: set with the same name already exists', 'Kernel error received: maximal number of sets reached, cannot create more.'];
        break;
      case 'destroy':
        choices = ['Set cannot be destroyed: it is in use by a kernel component', 'Kernel error received: Cannot allocate memory'];
        break;
      default:
        choices = ['Kernel error received: Cannot allocate memory'];
    }
  }
  return choices[variant % choices.length]!;
}
