/** What an `ipset` error is (kind), who caught it (side), and what skipping its line means (outcome). */

/** Error kinds of `ipset` messages. */
export type IpsetErrorKind =
  | 'set-missing'
  | 'set-exists'
  | 'set-in-use'
  | 'member-set-missing'
  | 'element-exists'
  | 'element-missing'
  | 'hash-full'
  | 'max-sets'
  | 'syntax'
  | 'parameter'
  | 'busy'
  | 'crash'
  | 'unknown';

/** Who caught an error: the kernel (lines before it applied) or ipset in userspace (pending batch lost). */
export type ErrorSide = 'kernel' | 'userspace';

/**
 * What skipping a line means for its set:
 * - `not-converged`: the set did not reach its desired state; it stays dirty and is reported.
 * - `in-use`: a destroy was refused because the set is referenced; it stays in the kernel (flushed) and is reported.
 * - `ignorable`: the line's effect already holds (flush/destroy of a set that is gone).
 */
export type Outcome = 'not-converged' | 'in-use' | 'ignorable';

/** `classifyIpsetError` result. */
export interface ClassifiedError {
  kind: IpsetErrorKind;
  side: ErrorSide;
  /** From `Error in line N:`; absent for parameter problems, port errors and crashes. */
  line?: number;
  /** What stood in `Error in line N:` when N is not a number (then `line` is absent). */
  lineText?: string;
  /** The message without the `ipset vX.Y: ` and `Error in line N: ` prefixes. */
  message: string;
  /** Worth retrying unchanged (busy, a signal). */
  transient: boolean;
}
