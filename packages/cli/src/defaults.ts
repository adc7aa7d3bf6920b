/**
 * The defaults of the command's options, in one place: `--help` shows them and the
 * commands use them. Those of the Linux port, the kernel lock and the agent come from
 * `@ipsets/exec-linux/defaults`, which owns them (and imports only core's pure
 * failure limit), so that `ipsets --help` loads no kernel, logger or metrics code.
 */
import { DEFAULT_LOCK_WAIT_MS, DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS } from '@ipsets/exec-linux/defaults';

export { DEFAULT_LOCK_WAIT_MS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_RESTORE_TIMEOUT_MS } from '@ipsets/exec-linux/defaults';

/**
 * The owner prefix of the `ipsets` command (CLI and agent) when neither the desired file
 * nor `--owner` names one: this project's own, so that the command never claims
 * another product's sets by default. The library's default stays Azure NPM's
 * `azure-npm-` (core's `DEFAULT_OWNER`, its compatibility mode); `--owner azure-npm-`
 * (or `owner: azure-npm-` in the file) asks the command for it.
 */
export const DEFAULT_CLI_OWNER = 'ipsets-';
/** `--state`: the fake kernel's state file, in the working folder. */
export const DEFAULT_STATE_FILE = '.ipsets-state.json';
/** `--grace`: how long a stop lets the restore in flight finish, 20 seconds. */
export const DEFAULT_GRACE_MS = 20_000;
/** agent `--metrics-bind-address`: loopback only, unless given. */
export const DEFAULT_METRICS_BIND_ADDRESS = '127.0.0.1:9464';
/** agent `--max-failures`: failing applies in a row before exit 5. */
export const DEFAULT_MAX_FAILURES = DEFAULT_MAX_CONSECUTIVE_FAILURES;
/** agent `--interval`: reconcile at least this often, 60 seconds. */
export const DEFAULT_INTERVAL_MS = 60_000;
/** agent `--debounce`: wait this long after a change of the file, 200 ms. */
export const DEFAULT_DEBOUNCE_MS = 200;

/** The destroy budget: share of the owned kernel sets one apply may destroy without `--allow-destroy` (one half)… */
export const DESTROY_BUDGET_SHARE = 0.5;
/** …unless it destroys at most this many sets. */
export const DESTROY_BUDGET_MIN_SETS = 10;

/** The range of a duration flag: values outside it exit 2 naming it. */
export interface DurationRange {
  readonly minMs: number;
  readonly maxMs: number;
  readonly defaultMs: number;
}

/**
 * The accepted range of every duration flag. Every maximum is far inside Node's timer
 * range (2^31-1 ms, 24.8 days; past it a timer fires after 1 ms: `--interval 600h`
 * became ~45 reconciles a second). `--interval` at least 100 ms: each tick is an
 * `ipset save`.
 */
export const DURATION_RANGES = {
  '--interval': { minMs: 100, maxMs: 24 * 3_600_000, defaultMs: DEFAULT_INTERVAL_MS },
  '--debounce': { minMs: 10, maxMs: 10 * 60_000, defaultMs: DEFAULT_DEBOUNCE_MS },
  '--grace': { minMs: 10, maxMs: 3_600_000, defaultMs: DEFAULT_GRACE_MS },
  '--wait': { minMs: 10, maxMs: 24 * 3_600_000, defaultMs: DEFAULT_LOCK_WAIT_MS },
  '--timeout': { minMs: 1000, maxMs: 24 * 3_600_000, defaultMs: DEFAULT_RESTORE_TIMEOUT_MS },
  '--read-timeout': { minMs: 1000, maxMs: 24 * 3_600_000, defaultMs: DEFAULT_READ_TIMEOUT_MS },
} as const satisfies Record<string, DurationRange>;

/** A flag of {@link DURATION_RANGES}. */
export type DurationFlag = keyof typeof DURATION_RANGES;
