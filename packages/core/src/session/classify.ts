/**
 * Classification of `ipset` error output (docs/ipset-semantics.md §3):
 * what went wrong (`kind`), who caught it (`side`), on which line, and whether
 * running the same input again can succeed (`transient`).
 */
import type { ClassifiedError, ErrorSide, IpsetErrorKind, PlanOp } from '../types.js';

/** The command of the line an error is reported for, when the caller knows it. */
export type ClassifyOp = PlanOp | 'test' | 'rename' | 'swap';

/** Options of {@link classifyIpsetError}. */
export interface ClassifyOptions {
  /** Exit status of `ipset` (`2` means a parameter problem; `128 + n` means killed by signal n). */
  exitCode?: number;
  /** The signal that ended `ipset`, e.g. `SIGSEGV`. */
  signal?: string;
  /**
   * The command of the failing line. Needed for one message only: "The set with the
   * given name does not exist" is caught in userspace on add/del/test lines (the
   * pending batch is lost) but by the kernel on flush/destroy/rename/swap (the batch
   * was sent). Without it that message is classified as kernel-side.
   */
  op?: ClassifyOp;
}

interface Rule {
  /** Matched against the message (prefixes stripped) with `startsWith`. */
  readonly prefix: string;
  readonly kind: IpsetErrorKind;
  readonly side: ErrorSide;
}

const SET_MISSING = 'The set with the given name does not exist';

/**
 * Messages of docs/ipset-semantics.md §3, most specific first. Kernel-rejected values
 * with no kind of their own (null element, /0, whole-range, protocol 0, timeout or
 * comment without support, list:set in list:set, bad before/after) are `unknown`
 * on the kernel side: they are deterministic, and only the side decides recovery.
 */
const RULES: readonly Rule[] = [
  // 3.1 set level
  { prefix: SET_MISSING, kind: 'set-missing', side: 'kernel' },
  { prefix: 'Sets cannot be swapped: the second set does not exist', kind: 'set-missing', side: 'kernel' },
  { prefix: 'The sets cannot be swapped: their type does not match', kind: 'unknown', side: 'kernel' },
  { prefix: 'Set cannot be created: set with the same name already exists', kind: 'set-exists', side: 'kernel' },
  { prefix: 'Set cannot be destroyed: it is in use by a kernel component', kind: 'set-in-use', side: 'kernel' },
  { prefix: 'Set cannot be renamed: it is in use by another system', kind: 'set-in-use', side: 'kernel' },
  { prefix: 'Set cannot be renamed: a set with the new name already exists', kind: 'set-exists', side: 'kernel' },
  { prefix: 'Kernel error received: maximal number of sets reached', kind: 'max-sets', side: 'kernel' },
  { prefix: 'Kernel error received: Device or resource busy', kind: 'busy', side: 'kernel' },
  // 3.2 element level
  { prefix: "Element cannot be added to the set: it's already added", kind: 'element-exists', side: 'kernel' },
  { prefix: "Element cannot be deleted from the set: it's not added", kind: 'element-missing', side: 'kernel' },
  { prefix: 'Hash is full, cannot add more elements', kind: 'hash-full', side: 'kernel' },
  { prefix: 'Set to be added/deleted/tested as element does not exist', kind: 'member-set-missing', side: 'kernel' },
  { prefix: 'Null-valued element, cannot be stored in a hash type of set', kind: 'unknown', side: 'kernel' },
  { prefix: 'The value of the CIDR parameter of the IP address is invalid', kind: 'unknown', side: 'kernel' },
  { prefix: 'Invalid range, covers the whole address space', kind: 'unknown', side: 'kernel' },
  { prefix: 'Invalid protocol specified', kind: 'unknown', side: 'kernel' },
  { prefix: 'Timeout cannot be used: set was created without timeout support', kind: 'unknown', side: 'kernel' },
  { prefix: 'Comment cannot be used: set was created without comment support', kind: 'unknown', side: 'kernel' },
  { prefix: 'Sets with list:set type cannot be added to the set', kind: 'unknown', side: 'kernel' },
  { prefix: "The set to which you referred with 'before' or 'after' is not added to the set", kind: 'unknown', side: 'kernel' },
  // Userspace parse errors of elements and create lines (3.1, 3.2)
  { prefix: 'Syntax error:', kind: 'syntax', side: 'userspace' },
  { prefix: 'Cannot parse ', kind: 'syntax', side: 'userspace' },
  { prefix: 'Invalid add command: missing setname', kind: 'syntax', side: 'userspace' },
  { prefix: 'Invalid del command: missing setname', kind: 'syntax', side: 'userspace' },
  { prefix: 'Invalid test command: missing setname', kind: 'syntax', side: 'userspace' },
  // 3.3 parameter problems (normally recognised by the Try-line or rc=2 first)
  { prefix: 'No command specified', kind: 'parameter', side: 'userspace' },
  { prefix: 'Missing mandatory argument', kind: 'parameter', side: 'userspace' },
  { prefix: 'Missing second mandatory argument', kind: 'parameter', side: 'userspace' },
  { prefix: 'Unknown argument', kind: 'parameter', side: 'userspace' },
  { prefix: 'Missing close quote!', kind: 'parameter', side: 'userspace' },
  { prefix: 'Line is too long to parse.', kind: 'parameter', side: 'userspace' },
  { prefix: 'Command `', kind: 'parameter', side: 'userspace' },
  // Other kernel errors (`Cannot allocate memory`, `ipset protocol error`, …)
  { prefix: 'Kernel error received:', kind: 'unknown', side: 'kernel' },
];

const VERSION_PREFIX = /^ipset v[0-9][0-9.]*: /;
/** `Error in line N: ` of restore mode; N is whatever stands there (a number unless ipset is broken). */
const LINE_PREFIX = /^Error in line\s+([^:\s]*)\s*: ?/;
const TRY_HELP = "Try `ipset help' for more information.";
const PORT_ERROR = /^cannot parse '.*' as an? .* port$/;

/** Signals that end `ipset` the same way on the same input (a bug, not bad luck). */
const DETERMINISTIC_SIGNALS = new Set(['SIGSEGV', 'SIGABRT', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGTRAP', 'SIGSYS']);

/** Linux signal numbers of the signals a shell reports as exit status 128 + n. */
const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  4: 'SIGILL',
  5: 'SIGTRAP',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
  31: 'SIGSYS',
};

function signalOf(options: ClassifyOptions, stderr: string): string | undefined {
  if (options.signal !== undefined && options.signal !== '') return options.signal;
  const code = options.exitCode;
  // An exit status of 128 + n without any message is how a shell or execa reports
  // "killed by signal n"; ipset itself never exits above 2 except 255 (file errors).
  if (code !== undefined && code > 128 && code < 160 && stderr === '') {
    return SIGNAL_NAMES[code - 128] ?? `signal ${code - 128}`;
  }
  return undefined;
}

/**
 * Classifies the stderr of a failed `ipset` run (restore, save or list).
 *
 * - `kind`: from the message, per docs/ipset-semantics.md §3; `crash` when the
 *   process was killed by a signal (`options.signal`, or exit status 128+n with no
 *   output, e.g. 139 for SIGSEGV); `parameter` for rc=2 or the
 *   ``Try `ipset help'`` line; `unknown` otherwise.
 * - `side`: `kernel` when lines before the failing one were applied, `userspace`
 *   when ipset stopped while parsing and its pending add/del batch was never sent.
 *   "The set with the given name does not exist" depends on the line's command
 *   (pass `options.op`; kernel-side without it). Unrecognised messages are
 *   `userspace` unless they say `Kernel error received:`: resending a batch under
 *   `-exist` is harmless, losing one is not.
 * - `line`: from `Error in line N:` on the first stderr line that has one (its message
 *   decides the kind); absent for parameter problems, the multi-line port errors and
 *   crashes. `lineText` instead when N is not a number. The session takes both from
 *   here: this is the only reader of line numbers.
 * - `message`: without `ipset vX.Y: ` and `Error in line N: `; multi-line messages
 *   keep their lines, joined by `\n`.
 * - `transient`: `busy`, and signals other than the deterministic ones (SIGSEGV,
 *   SIGABRT, SIGBUS, SIGILL, SIGFPE, …): a SIGSEGV recurs on the same input, a
 *   SIGKILL or SIGTERM came from outside.
 */
export function classifyIpsetError(stderr: string, options: ClassifyOptions = {}): ClassifiedError {
  // The first lines say what went wrong: a runaway stderr is read no further, and quoted short.
  const read = stderr.length > STDERR_READ_LIMIT ? stderr.slice(0, STDERR_READ_LIMIT) : stderr;
  const error = classifyText(read, options);
  if (error.message.length <= ERROR_MESSAGE_LIMIT && read === stderr) return error;
  let cut = Math.min(ERROR_MESSAGE_LIMIT, error.message.length);
  const last = error.message.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return { ...error, message: `${error.message.slice(0, cut)}… (cut: ipset printed ${stderr.length} characters)` };
}

/** Most of ipset's stderr {@link classifyIpsetError} reads (64 KiB): its first lines say what went wrong. */
export const STDERR_READ_LIMIT = 64 * 1024;

/** Longest message {@link classifyIpsetError} keeps (reports and logs quote it): 2,000 characters. */
export const ERROR_MESSAGE_LIMIT = 2000;

function classifyText(stderr: string, options: ClassifyOptions): ClassifiedError {
  const text = stderr.replace(/\r\n?/g, '\n').trim();
  const signal = signalOf(options, text);
  if (signal !== undefined) {
    const detail = text === '' ? '' : `: ${stripPrefixes(text.split('\n')).join('\n')}`;
    return {
      kind: 'crash',
      side: 'userspace',
      message: `ipset was killed by ${signal}${detail}`,
      transient: !DETERMINISTIC_SIGNALS.has(signal),
    };
  }

  const rawLines = text.split('\n').filter((l) => l.trim() !== '');
  if (rawLines.length === 0) {
    const code = options.exitCode;
    return {
      kind: 'unknown',
      side: 'userspace',
      message: code === undefined ? 'ipset failed without a message' : `ipset exited with status ${code} without a message`,
      transient: false,
    };
  }

  // The line number, and the message it belongs to, are on the first line that names one.
  let at = 0;
  let token: string | undefined;
  for (let i = 0; i < rawLines.length; i++) {
    const m = LINE_PREFIX.exec(rawLines[i]!.replace(VERSION_PREFIX, ''));
    if (m !== null) {
      at = i;
      token = m[1]!;
      break;
    }
  }
  const line = token !== undefined && /^\d+$/.test(token) ? Number(token) : undefined;
  const position: LinePosition = line !== undefined ? { line } : token !== undefined ? { lineText: token } : {};
  const lines = stripPrefixes(rawLines);
  const message = lines.join('\n');
  const head = lines[at]!;

  // Parameter problems: rc=2 and the Try-line; never a line number.
  if (rawLines.some((l) => l.trim() === TRY_HELP) || (options.exitCode === 2 && line === undefined)) {
    const withoutTry = lines.filter((l) => l.trim() !== TRY_HELP).join('\n');
    return { kind: 'parameter', side: 'userspace', message: withoutTry === '' ? message : withoutTry, transient: false };
  }

  // Port / service errors (docs/ipset-semantics.md §3.4): two or three lines, no line number.
  if (lines.some((l) => PORT_ERROR.test(l))) {
    return { kind: 'syntax', side: 'userspace', message, transient: false };
  }

  for (const rule of RULES) {
    if (!head.startsWith(rule.prefix)) continue;
    let side = rule.side;
    if (rule.prefix === SET_MISSING && (options.op === 'add' || options.op === 'del' || options.op === 'test')) {
      side = 'userspace';
    }
    return { kind: rule.kind, side, ...position, message, transient: rule.kind === 'busy' };
  }
  return { kind: 'unknown', side: 'userspace', ...position, message, transient: false };
}

type LinePosition = Pick<ClassifiedError, 'line' | 'lineText'>;

function stripPrefixes(lines: readonly string[]): string[] {
  return lines.map((l) => l.replace(VERSION_PREFIX, '').replace(LINE_PREFIX, ''));
}
