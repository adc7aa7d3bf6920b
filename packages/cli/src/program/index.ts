/**
 * The `ipsets` command line: every command with its own options (the shared ones
 * are in `program/options.ts`, the long help texts in `program/help.ts`), and the
 * mapping of outcomes and errors to exit codes (0 done/converged, 1 not converged or
 * the kernel failed, 2 bad input, 4 lock held, 5 agent failure limit, 6 `diff
 * --exit-code` could not read the kernel). Shell completion and the man page are
 * generated from these definitions (`program/completion.ts`, `program/man-page.ts`).
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import { isIpsetsError } from '@ipsets/core';
import { EXIT, reportError } from '../cli-io.js';
import type { CliIo } from '../cli-io.js';
import { DEFAULT_MAX_FAILURES, DEFAULT_METRICS_BIND_ADDRESS, DESTROY_BUDGET_MIN_SETS } from '../defaults.js';
import { AGENT_HELP, EXIT_HELP, FILE_HELP } from './help.js';
import { durationOption, kernelOf, kernelOptions, ownerOption, positiveInt } from './options.js';
import { COMPLETION_SHELLS, completionScript } from './completion.js';
import type { CompletionShell } from './completion.js';
import { manPage } from './man-page.js';
import { versionCommand } from './version.js';
import { cliVersion } from '../package-version.js';

export { cliVersion } from '../package-version.js';

// Commands load on use: `plan` never pays for the fake kernel, `demo` never for execa or prom-client.
const agentCommand: typeof import('../commands/agent.js').agentCommand = async (...a) => (await import('../commands/agent.js')).agentCommand(...a);
const applyCommand: typeof import('../commands/apply.js').applyCommand = async (...a) => (await import('../commands/apply.js')).applyCommand(...a);
const demoCommand: typeof import('../commands/demo.js').demoCommand = async (...a) => (await import('../commands/demo.js')).demoCommand(...a);
const diffCommand: typeof import('../commands/diff.js').diffCommand = async (...a) => (await import('../commands/diff.js')).diffCommand(...a);
const planCommand: typeof import('../commands/plan.js').planCommand = async (...a) => (await import('../commands/plan.js')).planCommand(...a);
const resetCommand: typeof import('../commands/reset.js').resetCommand = async (...a) => (await import('../commands/reset.js')).resetCommand(...a);
const saveCommand: typeof import('../commands/save.js').saveCommand = async (...a) => (await import('../commands/save.js')).saveCommand(...a);

/**
 * Builds the program. Each action stores its exit code in `result.code`; commander's
 * own errors (unknown option, missing argument) become exit 2.
 */
export function createProgram(io: CliIo, result: { code: number }): Command {
  const program = new Command();
  // `errorCode` lets a command remap the exit code of a failure (diff --exit-code: 1 is reserved for "differences").
  const run = (fn: () => Promise<number>, json = false, errorCode: (code: number) => number = (code) => code) => async () => {
    try {
      result.code = await fn();
    } catch (error) {
      const debug = program.opts()['debug'] === true;
      result.code = errorCode(json ? reportJsonError(io, error, errorCode) : exitCodeOfError(error, reportError(io, error, { debug })));
    }
  };
  program
    .name('ipsets')
    .description('Keep a kernel\'s ipsets equal to a desired-state file: plan, diff, apply, save, reset, agent, demo.')
    // Handled by runCli before parsing (it also reports the ipset found): declared here for --help, the completion and the man page.
    .option('-V, --version', 'print the version of ipsets and of the ipset it finds (with --json: as JSON)')
    .helpOption('-h, --help', 'show help')
    .option('--debug', 'print the stack trace of an internal error')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_HELP);

  ownerOption(
    program
      .command('plan')
      .description('print the restore text that would make a kernel equal to FILE (touches no kernel)')
      .argument('<file...>', 'desired-state file (JSON or YAML; - reads stdin), a folder of parts, or several files (parts of one state)')
      .option('--save <save-file>', 'plan against this captured `ipset save` output (- for stdin) instead of an empty kernel')
      .option('--json', 'print the plan as JSON: lines with sections and error handlers, notes')
      .addHelpText('after', FILE_HELP),
    true,
  ).action((files: string[], opts: { save?: string; json?: boolean; owner?: string }) => run(() => planCommand(oneOrMany(files), opts, io), opts.json === true)());

  kernelOptions(
    ownerOption(
      program
        .command('diff')
        .description('show, per set, the members to add and remove to make the kernel equal to FILE')
        .argument('<file...>', 'desired-state file (JSON or YAML; - reads stdin), a folder of parts, or several files (parts of one state)')
        .option('--limit <n>', 'members shown per set and direction', positiveInt('--limit'))
        .option('--exit-code', `exit 1 when there are differences, 0 when none, ${EXIT.diffKernelUnreadable} when the kernel could not be read (2 bad input)`)
        .option('--json', 'print the differences as JSON'),
      true,
    ),
  ).action((files: string[], opts: Record<string, unknown>) =>
    run(
      () =>
        diffCommand(
          oneOrMany(files),
          {
            ...kernelOf(opts),
            ...(opts['limit'] === undefined ? {} : { limit: opts['limit'] as number }),
            ...(opts['exitCode'] === true ? { exitCode: true } : {}),
          },
          io,
        ),
      opts['json'] === true,
      (code) => (opts['exitCode'] === true && code === EXIT.failed ? EXIT.diffKernelUnreadable : code),
    )(),
  );

  kernelOptions(
    ownerOption(
      program
        .command('apply')
        .description('make the kernel\'s owned sets equal to FILE and print the report (exit 0 converged, 1 not, 2 bad input, 3 in use, 4 locked)')
        .argument('<file...>', 'desired-state file (JSON or YAML; - reads stdin), a folder of parts, or several files (parts of one state)')
        .option('--json', 'print the report as JSON')
        .option('--allow-empty', 'allow a FILE with no sets to destroy the owned sets the kernel holds (refused otherwise, exit 2)')
        .option('--allow-destroy', `allow FILE to destroy more than half of the owned sets the kernel holds, and more than ${DESTROY_BUDGET_MIN_SETS} (refused otherwise, exit 2: a cut file looks like this)`)
        .addHelpText('after', FILE_HELP),
      true,
    ),
    { writer: true, grace: true, logs: true },
  ).action((files: string[], opts: Record<string, unknown>) => run(() => applyCommand(oneOrMany(files), { ...kernelOf(opts), ...allowedOf(opts) }, io), opts['json'] === true)());

  kernelOptions(
    ownerOption(program.command('save').description('print the kernel\'s owned sets in `ipset save` format')).option('--json', 'print the owned sets as JSON'),
  ).action((opts: Record<string, unknown>) => run(() => saveCommand(kernelOf(opts), io), opts['json'] === true)());

  kernelOptions(
    ownerOption(
      program.command('reset').description('destroy the kernel\'s owned sets (no other set; lists first, never a flush), list the ones still referenced (leaked)'),
    ).option('--json', 'print the report as JSON'),
    { writer: true, logs: true },
  ).action((opts: Record<string, unknown>) =>
    run(() => resetCommand(kernelOf(opts), io), opts['json'] === true)(),
  );

  kernelOptions(
    ownerOption(
      program
        .command('agent')
        .description('keep the kernel equal to FILE: apply on start, on every change of FILE, and on an interval')
        .argument('<file>', 'desired-state file (JSON or YAML), or a folder of parts')
        .addOption(durationOption('--interval', 'reconcile (and re-read FILE) this often even without changes'))
        .addOption(durationOption('--debounce', 'wait this long after a change of FILE before applying'))
        .option('--metrics-bind-address <host:port>', `serve /metrics, /livez and /readyz here (default ${DEFAULT_METRICS_BIND_ADDRESS}; any address when given, e.g. 0.0.0.0:9464)`)
        .addOption(new Option('--metrics <host:port>', 'deprecated alias of --metrics-bind-address').hideHelp())
        .option('--no-metrics', 'serve no metrics and no probes')
        .addOption(new Option('--max-failures <n>', 'failing applies in a row before the agent exits 5').argParser(positiveInt('--max-failures')).default(DEFAULT_MAX_FAILURES))
        .option('--once', 'apply once and exit (0 converged, 1 not, 2 refused input, 3 in-use leftovers)')
        .option('--allow-empty', 'allow a FILE with no sets to destroy the owned sets the kernel holds (refused otherwise: nothing is applied, the last good state stays)')
        .option('--allow-destroy', `allow FILE to destroy more than half of the owned sets the kernel holds, and more than ${DESTROY_BUDGET_MIN_SETS} (refused otherwise, like --allow-empty)`)
        .addHelpText('after', AGENT_HELP),
      true,
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
          ...allowedOf(opts),
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

  program
    .command('completion')
    .description(`print a shell completion script (${COMPLETION_SHELLS.join(', ')}): e.g. source <(ipsets completion bash)`)
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .action((shell: CompletionShell) =>
      run(async () => {
        io.stdout.write(completionScript(program, shell));
        return EXIT.ok;
      })(),
    );

  program
    .command('man')
    .description('print the manual page (roff): e.g. ipsets man | man -l -')
    .action(() =>
      run(async () => {
        io.stdout.write(manPage(program, { version: cliVersion() }));
        return EXIT.ok;
      })(),
    );

  return program;
}

/** `--allow-empty` and `--allow-destroy`, as the options of apply and the agent. */
function allowedOf(opts: Record<string, unknown>): { allowEmpty?: true; allowDestroy?: true } {
  return { ...(opts['allowEmpty'] === true ? { allowEmpty: true } : {}), ...(opts['allowDestroy'] === true ? { allowDestroy: true } : {}) };
}

/** One FILE as itself, several as the list (the parts of one desired state). */
function oneOrMany(files: readonly string[]): string | readonly string[] {
  return files.length === 1 ? files[0]! : files;
}

/** Exit code of an error: the kernel lock and the failure limit have their own, the rest as `reportError` says. */
function exitCodeOfError(error: unknown, reported: number): number {
  // Compared as text: the lock's code comes from @ipsets/exec-linux.
  if (isIpsetsError(error) && (error.code as string) === 'LOCK_HELD') return EXIT.lockHeld;
  if (isIpsetsError(error, 'MAX_CONSECUTIVE_FAILURES')) return EXIT.tooManyFailures;
  return reported;
}

/** `--json` errors: `{ schemaVersion: 1, error: { code, message } }` on stdout, nothing on stderr. */
function reportJsonError(io: CliIo, error: unknown, errorCode: (code: number) => number = (code) => code): number {
  const muted: CliIo = { ...io, stderr: { write: () => true } };
  const code = errorCode(exitCodeOfError(error, reportError(muted, error)));
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
  const words = argv.filter((a) => a !== '--debug');
  if (words.length === 0) {
    // No command is a usage error, as for git and ip: the help goes where errors go.
    program.outputHelp({ error: true });
    return EXIT.badInput;
  }
  if (words[0] === '--version' || words[0] === '-V') {
    const rest = words.slice(1);
    if (rest.length > 1 || (rest.length === 1 && rest[0] !== '--json')) {
      io.stderr.write(`ipsets: error: --version takes only --json, got ${JSON.stringify(rest.join(' '))}\n`);
      return EXIT.badInput;
    }
    return versionCommand({ version: cliVersion(), json: rest[0] === '--json' }, io);
  }
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
