/**
 * The `ipsets` command line: commander wiring of every command, their options and
 * help, and the mapping of outcomes to exit codes (0 done/converged, 1 not
 * converged or the kernel failed, 2 bad input).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { EXIT, reportError } from './cli-io.js';
import type { CliIo } from './cli-io.js';

// Commands load on use: `plan` never pays for the fake kernel, `demo` never for execa or prom-client.
const agentCommand: typeof import('./commands/agent.js').agentCommand = async (...a) => (await import('./commands/agent.js')).agentCommand(...a);
const applyCommand: typeof import('./commands/apply.js').applyCommand = async (...a) => (await import('./commands/apply.js')).applyCommand(...a);
const demoCommand: typeof import('./commands/demo.js').demoCommand = async (...a) => (await import('./commands/demo.js')).demoCommand(...a);
const diffCommand: typeof import('./commands/diff.js').diffCommand = async (...a) => (await import('./commands/diff.js')).diffCommand(...a);
const planCommand: typeof import('./commands/plan.js').planCommand = async (...a) => (await import('./commands/plan.js')).planCommand(...a);
const resetCommand: typeof import('./commands/reset.js').resetCommand = async (...a) => (await import('./commands/reset.js')).resetCommand(...a);
const saveCommand: typeof import('./commands/save.js').saveCommand = async (...a) => (await import('./commands/save.js')).saveCommand(...a);

/** Default name of the fake kernel's state file (kept here so `--help` loads no kernel code). */
const DEFAULT_STATE_FILE = '.ipsets-state.json';

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

/** Parses `30s`, `5m`, `1500ms`, `2h` or plain seconds into milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`expected a duration like 30s, 5m or 1500ms, got ${JSON.stringify(value)}.`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const ms = unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
  if (ms < 10) throw new InvalidArgumentError(`a duration of at least 10ms is needed, got ${JSON.stringify(value)}.`);
  return ms;
}

function kernelOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--kernel <kind>', 'which kernel: the embedded fake (state in a file) or the real one').choices(['fake', 'linux']).default('fake'))
    .option('--state <path>', `fake kernel: its state file (default ./${DEFAULT_STATE_FILE})`)
    .option('--netns <name>', 'linux kernel: run ipset inside this network namespace (ip netns exec)')
    .option('--ipset <path>', 'linux kernel: the ipset binary (default: ipset on PATH)');
}

/** Commander leaves unset options undefined except defaults; drop the default kernel's linux-only keys. */
function kernelOf(opts: Record<string, unknown>) {
  return {
    kernel: opts['kernel'] as string,
    ...(opts['state'] === undefined ? {} : { state: opts['state'] as string }),
    ...(opts['netns'] === undefined ? {} : { netns: opts['netns'] as string }),
    ...(opts['ipset'] === undefined ? {} : { ipset: opts['ipset'] as string }),
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

Types: namespace, keyLabelOfNamespace, keyValueLabelOfNamespace, keyLabelOfPod,
keyValueLabelOfPod, namedPorts, nestedLabelOfPod, cidrBlocks, emptyHashSet.
A file with any bad value is refused as a whole (exit 2); nothing is applied.`;

/**
 * Builds the program. Each action stores its exit code in `result.code`; commander's
 * own errors (unknown option, missing argument) become exit 2.
 */
export function createProgram(io: CliIo, result: { code: number }): Command {
  const program = new Command();
  const run = (fn: () => Promise<number>) => async () => {
    try {
      result.code = await fn();
    } catch (error) {
      result.code = reportError(io, error, { debug: program.opts()['debug'] === true });
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
    .addHelpText(
      'after',
      `
Exit codes: 0 done (apply: converged), 1 not converged or the kernel failed, 2 bad input
(nothing changed; also a refused empty desired state), 3 converged except owned sets the
kernel still references (in use), so they could not be removed.
Start with:  ipsets demo`,
    );

  program
    .command('plan')
    .description('print the restore text that would make a kernel equal to FILE (touches no kernel)')
    .argument('<file>', 'desired-state file (JSON or YAML)')
    .option('--save <save-file>', 'plan against this captured `ipset save` output (- for stdin) instead of an empty kernel')
    .option('--json', 'print the plan as JSON: lines with sections and error handlers, notes')
    .addHelpText('after', FILE_HELP)
    .action((file: string, opts: { save?: string; json?: boolean }) => run(() => planCommand(file, opts, io))());

  kernelOptions(
    program
      .command('diff')
      .description('show, per set, the members to add and remove to make the kernel equal to FILE')
      .argument('<file>', 'desired-state file (JSON or YAML)')
      .option('--limit <n>', 'members shown per set and direction', positiveInt('--limit'))
      .option('--exit-code', 'exit 1 when there are differences'),
  ).action((file: string, opts: Record<string, unknown>) =>
    run(() =>
      diffCommand(
        file,
        {
          ...kernelOf(opts),
          ...(opts['limit'] === undefined ? {} : { limit: opts['limit'] as number }),
          ...(opts['exitCode'] === true ? { exitCode: true } : {}),
        },
        io,
      ),
    )(),
  );

  kernelOptions(
    program
      .command('apply')
      .description('make the kernel\'s owned sets equal to FILE and print the report (exit 0 converged, 1 not, 2 bad input, 3 converged except sets in use)')
      .argument('<file>', 'desired-state file (JSON or YAML)')
      .option('--json', 'print the report as JSON')
      .option('--allow-empty', 'allow a FILE with no sets to destroy the owned sets the kernel holds (refused otherwise, exit 2)')
      .addHelpText('after', FILE_HELP),
  ).action((file: string, opts: Record<string, unknown>) =>
    run(() =>
      applyCommand(
        file,
        { ...kernelOf(opts), ...(opts['json'] === true ? { json: true } : {}), ...(opts['allowEmpty'] === true ? { allowEmpty: true } : {}) },
        io,
      ),
    )(),
  );

  kernelOptions(
    program
      .command('save')
      .description('print the kernel\'s owned sets in `ipset save` format')
      .option('--owner <prefix>', 'owner prefix of kernel set names', 'azure-npm-'),
  ).action((opts: Record<string, unknown>) => run(() => saveCommand({ ...kernelOf(opts), owner: opts['owner'] as string }, io))());

  kernelOptions(
    program
      .command('reset')
      .description('flush and destroy the kernel\'s owned sets (no other set), list the ones still referenced (leaked)')
      .option('--owner <prefix>', 'owner prefix of kernel set names', 'azure-npm-')
      .option('--json', 'print the report as JSON'),
  ).action((opts: Record<string, unknown>) =>
    run(() =>
      resetCommand({ ...kernelOf(opts), owner: opts['owner'] as string, ...(opts['json'] === true ? { json: true } : {}) }, io),
    )(),
  );

  kernelOptions(
    program
      .command('agent')
      .description('keep the kernel equal to FILE: apply on start, on every change of FILE, and on an interval')
      .argument('<file>', 'desired-state file (JSON or YAML)')
      .addOption(new Option('--interval <duration>', 'reconcile this often even without changes').argParser(parseDuration).default(60_000, '60s'))
      .addOption(
        new Option('--debounce <duration>', 'wait this long after a change of FILE before applying').argParser(parseDuration).default(200, '200ms'),
      )
      .option('--metrics <host:port>', 'serve Prometheus metrics on this loopback address (e.g. 127.0.0.1:9464)')
      .option('--once', 'apply once and exit (for scripts and health checks)'),
  ).action((file: string, opts: Record<string, unknown>) =>
    run(() =>
      agentCommand(
        file,
        {
          ...kernelOf(opts),
          intervalMs: opts['interval'] as number,
          debounceMs: opts['debounce'] as number,
          ...(opts['metrics'] === undefined ? {} : { metrics: opts['metrics'] as string }),
          ...(opts['once'] === true ? { once: true } : {}),
        },
        io,
      ),
    )(),
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
