/**
 * The port: the only door to a kernel. Core never runs a process; a port does
 * (`createLinuxPort` in @ipsets/exec-linux, `createFakePort` in @ipsets/testing).
 */

/** What one `ipset` invocation produced. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the process was ended by a signal (e.g. `SIGSEGV`, `SIGKILL`). */
  signal?: string;
  /** True when stdout was handed over through {@link PortCallOptions.stdout} as it arrived (`stdout` is then `''`). */
  streamed?: boolean;
}

/**
 * The part of the platform's `AbortSignal` that core relies on (core compiles
 * without DOM or Node types; a real `AbortSignal` fits).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Options a driver may pass to one port call. */
export interface PortCallOptions {
  /** Aborts the call; the port kills the process and rejects with an `ABORTED` IpsetsError. */
  signal?: AbortSignalLike;
  /**
   * Takes stdout in pieces as it arrives (`save`: the driver parses it while ipset still
   * prints; other calls may ignore it). A port that calls it hands over all of stdout
   * through it, in order, and resolves with `stdout: ''` and `streamed: true`; a port
   * that does not resolves with the whole stdout as before. A piece may end anywhere,
   * inside a line too.
   */
  stdout?: (piece: string) => void;
}

/**
 * A kernel's ipset interface. Implementations: `createLinuxPort` (@ipsets/exec-linux),
 * `createFakePort` (@ipsets/testing). Non-zero exit codes resolve (they are data);
 * a port rejects only when the command could not be run at all.
 */
export interface IpsetPort {
  /** `ipset -exist restore` with `text` on stdin. */
  restore(text: string, options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset save`. */
  save(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -n`. */
  listNames(options?: PortCallOptions): Promise<CommandResult>;
  /** `ipset list -t` (headers: References, Number of entries). */
  listHeaders(options?: PortCallOptions): Promise<CommandResult>;
}
