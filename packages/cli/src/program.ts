/**
 * The `ipsets` command line: commander wiring of every command, their options and
 * help, and the mapping of outcomes to exit codes (0 done/converged, 1 not
 * converged or the kernel failed, 2 bad input).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { isIpsetsError } from '@ipsets/core';
import { EXIT, reportError } from './cli-io.js';
import type { CliIo } from './cli-io.js';
import { parseDuration as parseDurationText } from './duration.js';
import { LOG_LEVELS, parseLogFormat, parseLogLevel } from './logging.js';
import type { LogFormat, LogLevel } from './logging.js';

// Commands load on use: `plan` never pays for the fake kernel, `demo` never for execa or prom-client.
const agentCommand: typeof import('./commands/agent.js').agentCommand = async (...a) => (await import('./commands/agent.js')).agentCommand(...a);
const applyCommand: typeof import('./commands/apply.js').applyCommand = async (...a) => (await import('./commands/apply.js')).applyCommand(...a);
const demoCommand: typeof import('./commands/demo.js').demoCommand = async (...a) => (await import('./commands/demo.js')).demoCommand(...a);
const diffCommand: typeof import('./commands/diff.js').diffCommand = async (...a) => (await import('./commands/diff.js')).diffCommand(...a);
const planCommand: typeof import('./commands/plan.js').planCommand = async (...a) => (await import('./commands/plan.js')).planCommand(...a);
const resetCommand: typeof import('./commands/reset.js').resetCommand = async (...a) => (await import('./commands/reset.js')).resetCommand(...a);
const saveCommand: typeof import('./commands/save.js').saveCommand = async (...a) => (await import('./commands/save.js')).saveCommand(...a);

// Defaults are repeated here (and checked equal in the tests) so that `--help` loads no kernel code.
/** Default name of the fake kernel's state file. */
const DEFAULT_STATE_FILE = '.ipsets-state.json';
/** `--timeout`: 5 minutes. */
export const DEFAULT_RESTORE_TIMEOUT_MS = 5 * 60_000;
/** `--read-timeout`: 1 minute. */
export const DEFAULT_READ_TIMEOUT_MS = 60_000;
/** `--wait`: 30 seconds. */
export const DEFAULT_LOCK_WAIT_MS = 30_000;
/** `--grace`: 20 seconds. */
export const DEFAULT_GRACE_MS = 20_000;
/** `--metrics-bind-address`. */
export const DEFAULT_METRICS_BIND_ADDRESS = '127.0.0.1:9464';
/** `--max-failures`. */
export const DEFAULT_MAX_FAILURES = 100;

/** This package's version (from its package.json). */
export function cliVersion(): string {
  // dist/bin.js and src/program.ts both sit one folder below package.json.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function positiveInt(name: string) {
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
export function parseDuration(value: string): number {
  try {
    return parseDurationText(value);
  } catch (error) {
    throw new InvalidArgumentError(isIpsetsError(error) ? `${error.message}.` : String(error));
  }
}

function choice<T extends string>(parse: (value: string) => T) {
  return (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(isIpsetsError(error) ? `${error.message}.` : String(error));
    }
  };
}

/** What a command with a kernel accepts. */
interface KernelFlags {
  /** apply, reset, agent: `--wait` and `--lock-file`. */
  writer?: boolean;
  /** apply, agent: `--grace`. */
  grace?: boolean;
  /** apply, reset, agent: `--log-format`, `--log-level`. */
  logs?: boolean;
}

function kernelOptions(cmd: Command, flags: KernelFlags = {}): Command {
  cmd
    .addOption(new Option('--kernel <kind>', 'which kernel: linux (the real one, through ipset; the default) or fake (the embedded fake, state in --state)').choices(['fake', 'linux']))
    .option('--state <path>', `fake kernel: its state file (default ./${DEFAULT_STATE_FILE}; needs --kernel fake)`)
    .option('--netns <name>', 'linux kernel: run ipset inside this network namespace (ip netns exec)')
    .option('--ipset <path>', 'linux kernel: the ipset binary (default: ipset on PATH)')
    .addOption(new Option('--timeout <duration>', 'kill an ipset restore that runs longer than this (then the report names what did not reach the kernel)').argParser(parseDuration).default(DEFAULT_RESTORE_TIMEOUT_MS, '5m'))
    .addOption(new Option('--read-timeout <duration>', 'kill an ipset save or list that runs longer than this').argParser(parseDuration).default(DEFAULT_READ_TIMEOUT_MS, '1m'));
  if (flags.writer === true) {
    cmd
      .addOption(new Option('--wait <duration>', 'wait this long for another writer of the same kernel to finish (then exit 4)').argParser(parseDuration).default(DEFAULT_LOCK_WAIT_MS, '30s'))
      .option('--lock-file <path>', 'the lock file writers of this kernel share (default /run/ipsets/<netns or "host">.lock; fake: <state file>.lock)');
  }
  if (flags.grace === true) {
    cmd.addOption(
      new Option('--grace <duration>', 'after SIGTERM/SIGINT, let the restore in flight finish for this long, then abort it (a second signal exits at once)')
        .argParser(parseDuration)
        .default(DEFAULT_GRACE_MS, '20s'),
    );
  }
  if (flags.logs === true) {
    cmd
      .addOption(new Option('--log-format <format>', 'log lines on stderr: json (one object per line) or text (default: text on a terminal, else json)').argParser(choice(parseLogFormat)))
      .addOption(new Option('--log-level <level>', `least severe log line written: ${LOG_LEVELS.join(', ')}`).argParser(choice(parseLogLevel)).default('info'));
  }
  return cmd;
}

/** Commander leaves unset options undefined except defaults; keep only what was set. */
function kernelOf(opts: Record<string, unknown>) {
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
    ...(opts['json'] === true ? { json: true } : {}),
  };
}

const FILE_HELP = `
The desired-state FILE (JSON or YAML) lists sets by NPM type and unprefixed name:

  owner: azure-npm-            # optional: kernel-name prefix
  scheme: sha256-base36        # optional: or fnv32
  sets:
    - { type: namespace, name: shop, members: [10.244.1.10, 10.244.1.11] }
    - { type: namedPorts, name: http, members: ["10.244.1.10,tcp:8080"] }
    - { type: cidrBlocks, name: egress-0, members: [10.0.0.0/8, "10.96.0.0/12 nomatch"] }
    - type: keyLabelOfNamespace
      name: team
      members: [{ type: namespace, name: shop }]
    - { type: keyLabelOfPod, name: app, members: [10.244.1.10, "fd00::a"], maxelem: 131072 }
    - { type: namespace, name: v6, family: inet6, members: ["fd00::b"] }

Hash sets may hold IPv4 and IPv6 members (one kernel set per family), or name one
family (inet, inet6); maxelem and hashsize set the kernel set's capacity.

Types: namespace, keyLabelOfNamespace, keyValueLabelOfNamespace, keyLabelOfPod,
keyValueLabelOfPod, namedPorts, nestedLabelOfPod, cidrBlocks, emptyHashSet.
A file with any bad value is refused as a whole (exit 2); nothing is applied.`;

/**
 * Builds the program. Each action stores its exit code in `result.code`; commander's
 * own errors (unknown option, missing argument) become exit 2.
 */
export function createProgram(io: CliIo, result: { code: number }): Command {
  const program = new Command();
  const run = (fn: () => Promise<number>, json = false) => async () => {
    try {
      result.code = await fn();
    } catch (error) {
      const debug = program.opts()['debug'] === true;
      result.code = json ? reportJsonError(io, error) : exitCodeOfError(error, reportError(io, error, { debug }));
    }
  };
  program
    .name('ipsets')
    .description('Keep a kernel\'s ipsets equal to a desired-state file: plan, diff, apply, save, reset, agent, demo.')
    .version(cliVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--debug', 'print the stack trace of an internal error')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_HELP);

  program
    .command('plan')
    .description('print the restore text that would make a kernel equal to FILE (touches no kernel)')
    .argument('<file>', 'desired-state file (JSON or YAML; - reads stdin)')
    .option('--save <save-file>', 'plan against this captured `ipset save` output (- for stdin) instead of an empty kernel')
    .option('--json', 'print the plan as JSON: lines with sections and error handlers, notes')
    .addHelpText('after', FILE_HELP)
    .action((file: string, opts: { save?: string; json?: boolean }) => run(() => planCommand(file, opts, io), opts.json === true)());

  kernelOptions(
    program
      .command('diff')
      .description('show, per set, the members to add and remove to make the kernel equal to FILE')
      .argument('<file>', 'desired-state file (JSON or YAML; - reads stdin)')
      .option('--limit <n>', 'members shown per set and direction', positiveInt('--limit'))
      .option('--exit-code', 'exit 1 when there are differences')
      .option('--json', 'print the differences as JSON'),
  ).action((file: string, opts: Record<string, unknown>) =>
    run(
      () =>
        diffCommand(
          file,
          {
            ...kernelOf(opts),
            ...(opts['limit'] === undefined ? {} : { limit: opts['limit'] as number }),
            ...(opts['exitCode'] === true ? { exitCode: true } : {}),
          },
          io,
        ),
      opts['json'] === true,
    )(),
  );

  kernelOptions(
    program
      .command('apply')
      .description('make the kernel\'s owned sets equal to FILE and print the report (exit 0 converged, 1 not, 2 bad input, 3 in use, 4 locked)')
      .argument('<file>', 'desired-state file (JSON or YAML; - reads stdin)')
      .option('--json', 'print the report as JSON')
      .option('--allow-empty', 'allow a FILE with no sets to destroy the owned sets the kernel holds (refused otherwise, exit 2)')
      .addHelpText('after', FILE_HELP),
    { writer: true, grace: true, logs: true },
  ).action((file: string, opts: Record<string, unknown>) => run(() => applyCommand(file, { ...kernelOf(opts), ...(opts['allowEmpty'] === true ? { allowEmpty: true } : {}) }, io), opts['json'] === true)());

  kernelOptions(
    program
      .command('save')
      .description('print the kernel\'s owned sets in `ipset save` format')
      .option('--owner <prefix>', 'owner prefix of kernel set names', 'azure-npm-')
      .option('--json', 'print the owned sets as JSON'),
  ).action((opts: Record<string, unknown>) => run(() => saveCommand({ ...kernelOf(opts), owner: opts['owner'] as string }, io), opts['json'] === true)());

  kernelOptions(
    program
      .command('reset')
      .description('flush and destroy the kernel\'s owned sets (no other set), list the ones still referenced (leaked)')
      .option('--owner <prefix>', 'owner prefix of kernel set names', 'azure-npm-')
      .option('--json', 'print the report as JSON'),
    { writer: true, logs: true },
  ).action((opts: Record<string, unknown>) =>
    run(() => resetCommand({ ...kernelOf(opts), owner: opts['owner'] as string }, io), opts['json'] === true)(),
  );

  kernelOptions(
    program
      .command('agent')
      .description('keep the kernel equal to FILE: apply on start, on every change of FILE, and on an interval')
      .argument('<file>', 'desired-state file (JSON or YAML)')
      .addOption(new Option('--interval <duration>', 'reconcile (and re-read FILE) this often even without changes').argParser(parseDuration).default(60_000, '60s'))
      .addOption(
        new Option('--debounce <duration>', 'wait this long after a change of FILE before applying').argParser(parseDuration).default(200, '200ms'),
      )
      .option('--metrics-bind-address <host:port>', `serve /metrics, /livez and /readyz here (default ${DEFAULT_METRICS_BIND_ADDRESS}; any address when given, e.g. 0.0.0.0:9464)`)
      .addOption(new Option('--metrics <host:port>', 'deprecated alias of --metrics-bind-address').hideHelp())
      .option('--no-metrics', 'serve no metrics and no probes')
      .addOption(new Option('--max-failures <n>', 'failing applies in a row before the agent exits 5').argParser(positiveInt('--max-failures')).default(DEFAULT_MAX_FAILURES))
      .option('--once', 'apply once and exit (0 converged, 1 not, 3 in-use leftovers)')
      .option('--allow-empty', 'allow a FILE with no sets to destroy the owned sets the kernel holds (refused otherwise: nothing is applied, the apply counts as failed)')
      .addHelpText(
        'after',
        `
Probes: /livez answers 200 while the loop runs and no apply is stuck; /readyz answers 200
once the first apply finished, the last one converged (or only in-use sets remain) and
FILE is valid, else 503 with the reason. /healthz is an alias of /readyz.
FILE may be a Kubernetes ConfigMap volume: its ..data symlink swaps are followed.`,
      ),
    { writer: true, grace: true, logs: true },
  ).action((file: string, opts: Record<string, unknown>) =>
    run(() => {
      const address = (opts['metricsBindAddress'] ?? opts['metrics']) as string | boolean | undefined;
      return agentCommand(
        file,
        {
          ...kernelOf(opts),
          intervalMs: opts['interval'] as number,
          debounceMs: opts['debounce'] as number,
          maxFailures: opts['maxFailures'] as number,
          // `--no-metrics` makes commander store metrics: false.
          ...(address === false ? { noMetrics: true } : typeof address === 'string' ? { metricsBindAddress: address } : {}),
          ...(opts['metrics'] !== undefined && opts['metrics'] !== false && opts['metricsBindAddress'] === undefined ? { deprecatedMetricsFlag: true } : {}),
          ...(opts['once'] === true ? { once: true } : {}),
          ...(opts['allowEmpty'] === true ? { allowEmpty: true } : {}),
        },
        io,
      );
    })(),
  );

  program
    .command('demo')
    .description('run a node scenario on the embedded fake kernel: first apply, pod churn, planted faults, recovery, final check')
    .option('--pods <n>', 'pods in the scenario', positiveInt('--pods'), 600)
    .option('--seed <n>', 'seed of the scenario\'s random choices', positiveInt('--seed'), 7)
    .option('--lines <n>', 'lines of each restore text to show', positiveInt('--lines'), 6)
    .action((opts: { pods: number; seed: number; lines: number }) => run(() => demoCommand(opts, io))());

  return program;
}

const EXIT_HELP = `
Commands that read or change a kernel (diff, apply, save, reset, agent) use the real
kernel unless --kernel fake is given; demo runs on its own embedded fake; plan touches
no kernel.

Exit codes:
  0  done (apply: converged; agent: clean stop after SIGTERM/SIGINT)
  1  not converged, or the kernel failed (incl. a timeout; a report is printed)
  2  bad input: nothing was changed (also a refused empty desired state)
  3  converged except owned sets the kernel still references (in use)
  4  another writer holds the kernel lock and --wait ran out
  5  agent: --max-failures failing applies in a row (let the supervisor restart it)
  130/143  a second SIGINT/SIGTERM forced the exit
Start with:  ipsets demo`;

/** Exit code of an error: the kernel lock and the failure limit have their own, the rest as `reportError` says. */
function exitCodeOfError(error: unknown, reported: number): number {
  // Compared as text: the lock's code comes from @ipsets/exec-linux.
  if (isIpsetsError(error) && (error.code as string) === 'LOCK_HELD') return EXIT.lockHeld;
  if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) return EXIT.tooManyFailures;
  return reported;
}

/** `--json` errors: `{ schemaVersion: 1, error: { code, message } }` on stdout, nothing on stderr. */
function reportJsonError(io: CliIo, error: unknown): number {
  const muted: CliIo = { ...io, stderr: { write: () => true } };
  const code = exitCodeOfError(error, reportError(muted, error));
  const body = isIpsetsError(error)
    ? { code: error.code, message: error.message }
    : { code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
  io.stdout.write(JSON.stringify({ schemaVersion: 1, exitCode: code, error: body }, null, 2) + '\n');
  return code;
}

/**
 * Runs the command line `argv` (without `node` and the script) and returns the exit code.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const result = { code: EXIT.ok as number };
  const program = createProgram(io, result);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return EXIT.ok;
      }
      // Commander printed the message already.
      return EXIT.badInput;
    }
    return reportError(io, error, { debug: argv.includes('--debug') });
  }
  return result.code;
}
