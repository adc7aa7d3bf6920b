/**
 * The defaults of the Linux port, the kernel lock and the agent, in one place. This
 * module imports nothing but core's (pure) failure limit, so a program can read them
 * (the `ipsets` command shows them in `--help`) without loading the port:
 * `import { DEFAULT_LOCK_WAIT_MS } from '@ipsets/exec-linux/defaults'`.
 */
import { DEFAULT_MAX_FAILURES } from '@ipsets/core';

/** Default limit of one `ipset restore` (5 minutes): a 1,000,000-line restore takes a few seconds. */
export const DEFAULT_RESTORE_TIMEOUT_MS = 5 * 60_000;

/** Default limit of one `ipset save` / `list` (1 minute). */
export const DEFAULT_READ_TIMEOUT_MS = 60_000;

/** How long a writer waits for the kernel lock by default (30 s). */
export const DEFAULT_LOCK_WAIT_MS = 30_000;

/** The reference's consecutive-failure limit (core's, the manager's too). */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = DEFAULT_MAX_FAILURES;

/**
 * Default of the agent's `stuckAfterMs`: five restore attempts at the port's default
 * restore timeout, two reads at the default read timeout, and the default lock wait.
 */
export const DEFAULT_STUCK_AFTER_MS = 5 * DEFAULT_RESTORE_TIMEOUT_MS + 2 * DEFAULT_READ_TIMEOUT_MS + DEFAULT_LOCK_WAIT_MS;
