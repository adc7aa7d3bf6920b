/**
 * Option wiring shared by the commands: argument parsers that turn bad text into
 * commander's usage errors (exit 2), the kernel options every kernel command takes,
 * and the mapping of commander's parsed options to a command's options.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { isIpsetsError, validateOwnerPrefix } from '@ipsets/core';
import { DEFAULT_CLI_OWNER, DEFAULT_STATE_FILE, DURATION_RANGES } from '../defaults.js';
import type { DurationFlag } from '../defaults.js';
import { formatDurationMs, parseDuration as parseDurationText } from '../duration.js';
import type { ParseDurationOptions } from '../duration.js';
import { LOG_FORMATS, LOG_LEVELS, parseLogFormat, parseLogLevel } from '../logging.js';
import type { LogFormat, LogLevel } from '../logging.js';

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got ${JSON.stringify(value)}.`);
    return n;
  };
}

/**
 * Parses `30s`, `5m`, `1500ms`, `2h`, plain seconds, or compound `1m30s` into
 * milliseconds (commander's argument parser: bad text is an InvalidArgumentError).
 */
export function parseDuration(value: string, options: ParseDurationOptions = {}): number {
  try {
    return parseDurationText(value, options);
  } catch (error) {
    throw new InvalidArgumentError(isIpsetsError(error) ? `${error.message}.` : String(error));
  }
}

/**
 * A duration flag: its help line ends with its range (`100ms–24h`), its default (from
 * {@link DURATION_RANGES}, shown in the same units), and a value outside the range is a
 * usage error (exit 2) naming it.
 */
export function durationOption(flag: DurationFlag, description: string): Option {
  const range = DURATION_RANGES[flag];
  return new Option(`${flag} <duration>`, `${description} (${formatDurationMs(range.minMs)}–${formatDurationMs(range.maxMs)})`)
    .argParser((value: string) => parseDuration(value, { flag, minMs: range.minMs, maxMs: range.maxMs }))
    .default(range.defaultMs, formatDurationMs(range.defaultMs));
}

export function choice<T extends string>(parse: (value: string) => T) {
  return (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(isIpsetsError(error) ? `${error.message}.` : String(error));
    }
  };
}

/**
 * Lists `values` as the option's choices for the help, the completion and the man page,
 * keeping its own parser (whose message says what was expected in the house style).
 */
function withCompletions(option: Option, values: readonly string[]): Option {
  option.argChoices = [...values];
  return option;
}

/** What a command with a kernel accepts. */
export interface KernelFlags {
  /** apply, reset, agent: `--wait` and `--lock-file`. */
  writer?: boolean;
  /** apply, agent: `--grace`. */
  grace?: boolean;
  /** apply, reset, agent: `--log-format`, `--log-level`. */
  logs?: boolean;
}

export function kernelOptions(cmd: Command, flags: KernelFlags = {}): Command {
  cmd
    .addOption(new Option('--kernel <kind>', 'which kernel: linux (the real one, through ipset; the default) or fake (the embedded fake, state in --state)').choices(['fake', 'linux']))
    .option('--state <path>', `fake kernel: its state file (default ./${DEFAULT_STATE_FILE}; needs --kernel fake)`)
    .option('--netns <name>', 'linux kernel: run ipset inside this network namespace (ip netns exec)')
    .option('--ipset <path>', 'linux kernel: the ipset binary (default: ipset on PATH)')
    .addOption(durationOption('--timeout', 'kill an ipset restore that runs longer than this (then the report names what did not reach the kernel)'))
    .addOption(durationOption('--read-timeout', 'kill an ipset save or list that runs longer than this'));
  if (flags.writer === true) {
    cmd
      .addOption(durationOption('--wait', 'wait this long for another writer of the same kernel to finish (then exit 4)'))
      .option('--lock-file <path>', 'the lock file writers of this kernel share (default /run/ipsets/<netns or "host">.lock; fake: <state file>.lock)');
  }
  if (flags.grace === true) {
    cmd.addOption(durationOption('--grace', 'after SIGTERM/SIGINT, let the restore in flight finish for this long, then abort it (a second signal exits at once)'));
  }
  if (flags.logs === true) {
    cmd
      .addOption(
        withCompletions(
          new Option('--log-format <format>', 'log lines on stderr: json (one object per line) or text (default: text on a terminal, else json)').argParser(choice(parseLogFormat)),
          LOG_FORMATS,
        ),
      )
      .addOption(withCompletions(new Option('--log-level <level>', `least severe log line written: ${LOG_LEVELS.join(', ')}`).argParser(choice(parseLogLevel)).default('info'), LOG_LEVELS));
  }
  return cmd;
}

/** Commander leaves unset options undefined except defaults; keep only what was set. */
export function kernelOf(opts: Record<string, unknown>) {
  const set = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));
  return {
    ...set('kernel', opts['kernel'] as string | undefined),
    ...set('state', opts['state'] as string | undefined),
    ...set('netns', opts['netns'] as string | undefined),
    ...set('ipset', opts['ipset'] as string | undefined),
    ...set('timeoutMs', opts['timeout'] as number | undefined),
    ...set('readTimeoutMs', opts['readTimeout'] as number | undefined),
    ...set('waitMs', opts['wait'] as number | undefined),
    ...set('lockFile', opts['lockFile'] as string | undefined),
    ...set('graceMs', opts['grace'] as number | undefined),
    ...set('logFormat', opts['logFormat'] as LogFormat | undefined),
    ...set('logLevel', opts['logLevel'] as LogLevel | undefined),
    ...set('owner', opts['owner'] as string | undefined),
    ...(opts['json'] === true ? { json: true } : {}),
  };
}

/** Commander's parser of `--owner`: core's rule for a prefix that selects kernel sets (a bad one is exit 2). */
export function parseOwner(value: string): string {
  try {
    validateOwnerPrefix(value);
  } catch (error) {
    throw new InvalidArgumentError(isIpsetsError(error) ? `${error.message}.` : String(error));
  }
  return value;
}

/**
 * `--owner <prefix>`. Of save and reset: the kernel sets they select (default
 * {@link DEFAULT_CLI_OWNER}). Of the commands that read a FILE (`forFile`): the owner of
 * a file that names none; a file that names another one is refused.
 */
export function ownerOption(cmd: Command, forFile = false): Command {
  return cmd.addOption(
    new Option(
      '--owner <prefix>',
      forFile
        ? `owner prefix of kernel set names when FILE names none (default ${DEFAULT_CLI_OWNER}; azure-npm- manages sets named like Azure NPM's)`
        : `owner prefix of the kernel sets to select (azure-npm- for sets named like Azure NPM's)`,
    )
      .argParser(parseOwner)
      .default(forFile ? undefined : DEFAULT_CLI_OWNER, forFile ? undefined : DEFAULT_CLI_OWNER),
  );
}
