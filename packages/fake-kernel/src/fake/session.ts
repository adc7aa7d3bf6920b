/**
 * One run of the ipset userspace tool over a {@link KernelState}: `ipset restore`
 * (line reading, env options, prefix-matched commands, add/del batching into 4096-byte
 * messages, userspace vs kernel errors, first error stops) and single commands.
 * Follows `docs/ipset-semantics.md` docs/ipset-semantics.md §1–§3 and §6.
 *
 * Why one file: it is one C function's behaviour (ipset's restore loop with its batching
 * and first-error rule); the steps share the batch being built and its error state, and the
 * order they run in is the behaviour being modelled.
 */
import type { CommandResult } from '@ipsets/core';
import { parseCreate } from './create.js';
import { type AdtCmd, batchHeaderSize, checkSetName, type Elem, ParseFailure, parseAdt, type SetView } from './elements.js';
import { MSG, PREFIX, TRY_HELP } from './messages.js';
import { dumpText } from './output.js';
import type { KernelState } from './state.js';
import { chunkEnd, cutCharacter, isSpace, MISSING_QUOTE, printable, TOO_LONG, tokenize } from './tokenizer.js';

/** Commands of the ipset command table (docs/ipset-semantics.md §1.4), in matching order. */
export type Command =
  | 'create'
  | 'add'
  | 'del'
  | 'test'
  | 'destroy'
  | 'list'
  | 'save'
  | 'restore'
  | 'flush'
  | 'rename'
  | 'swap'
  | 'help'
  | 'version'
  | 'quit';

const COMMAND_TABLE: readonly (readonly [Command, readonly string[]])[] = [
  ['create', ['create', 'new', '-N']],
  ['add', ['add', '-A']],
  ['del', ['del', '-D']],
  ['test', ['test', '-T']],
  ['destroy', ['destroy', 'x', '-X']],
  ['list', ['list', '-L']],
  ['save', ['save', '-S']],
  ['restore', ['restore', '-R']],
  ['flush', ['flush', '-F']],
  ['rename', ['rename', 'e', '-E']],
  ['swap', ['swap', 'w', '-W']],
  ['help', ['help', '-h', '-H']],
  ['version', ['version', '-v', '-V']],
  ['quit', ['quit']],
];

const commandCache = new Map<string, Command | null>();

/** ipset_match_cmd(): the first command of which `word` is a prefix (`--` allowed). */
export function matchCommand(word: string): Command | undefined {
  const cached = commandCache.get(word);
  if (cached !== undefined) return cached ?? undefined;
  let found: Command | null = null;
  const skip = word.startsWith('--') ? 2 : 0;
  if (word.length > skip && word !== '-') {
    const w = word.slice(skip);
    for (const [cmd, names] of COMMAND_TABLE) {
      if (names.some((n) => n.startsWith(w))) {
        found = cmd;
        break;
      }
    }
  }
  if (commandCache.size < 10_000) commandCache.set(word, found);
  return found ?? undefined;
}

type EnvOpt = 'output' | 'quiet' | 'resolve' | 'sorted' | 'exist' | 'name' | 'terse' | 'file';
const ENV_OPTS: ReadonlyMap<string, EnvOpt> = new Map([
  ['-o', 'output'],
  ['-output', 'output'],
  ['-q', 'quiet'],
  ['-quiet', 'quiet'],
  ['-r', 'resolve'],
  ['-resolve', 'resolve'],
  ['-s', 'sorted'],
  ['-sorted', 'sorted'],
  ['-exist', 'exist'],
  ['-!', 'exist'],
  ['-n', 'name'],
  ['-name', 'name'],
  ['-t', 'terse'],
  ['-terse', 'terse'],
  ['-f', 'file'],
  ['-file', 'file'],
]);

/** ipset_match_envopt(): exact name, one extra leading `-` allowed. */
export function matchEnvOpt(word: string): EnvOpt | undefined {
  if (word.charCodeAt(0) !== 45) return undefined;
  return ENV_OPTS.get(word.startsWith('--') ? word.slice(1) : word);
}

/** An injected failure of one line (see FakeKernel.failLine). */
export interface LineFault {
  message: string;
  side: 'kernel' | 'userspace';
}

/** Faults the kernel hands to one run. */
export interface RunFaults {
  /** False when no line faults are armed (keeps the hot path free of slicing). */
  readonly hasLineFaults: boolean;
  /** Fault for input line `line` (the fgets counter) whose text is `text`; consumed when it fires. */
  lineFault(line: number, text: string): LineFault | undefined;
  /** True when the next add/del batch must fail with `busy` (consumes one). */
  takeBusy(): boolean;
  /** Crash: apply lines 1..after, then end with the signal. */
  crash?: { after: number; signal: 'SIGKILL' | 'SIGSEGV' };
}

const NO_FAULTS: RunFaults = { hasLineFaults: false, lineFault: () => undefined, takeBusy: () => false };

interface Batch {
  cmd: 'add' | 'del';
  setName: string;
  exist: boolean;
  length: number;
  elems: Elem[];
}

interface KernelFailure {
  line: number;
  message: string;
}

const BUFFER_SIZE = 4096;

/** One process of the ipset tool. */
export class Session {
  private exist: boolean;
  private quiet = false;
  private mode: 'none' | 'plain' | 'save' = 'none';
  private names = false;
  private terse = false;
  private sorted = false;
  private lastCmd: Command | null = null;
  private batch: Batch | null = null;
  /** The userspace set cache: sets created (or renamed/swapped) in this run, with the family parsed. */
  private readonly cache = new Map<string, SetView>();
  private readonly out: string[] = [];
  private readonly words: string[] = new Array<string>(32).fill('');
  /** Restore mode: errors carry `Error in line N: `. */
  private readonly restoreMode: boolean;

  constructor(
    private readonly state: KernelState,
    options: { exist?: boolean; restoreMode: boolean; initval: (name: string) => number },
    private readonly faults: RunFaults = NO_FAULTS,
  ) {
    this.exist = options.exist ?? false;
    this.restoreMode = options.restoreMode;
    this.initval = options.initval;
  }

  private readonly initval: (name: string) => number;

  /** Sets env flags given on the command line (`ipset -exist -n list`). */
  setEnv(opt: EnvOpt, arg?: string, line = 0): CommandResult | null {
    switch (opt) {
      case 'exist':
        this.exist = true;
        break;
      case 'quiet':
        this.quiet = true;
        break;
      case 'name':
        this.names = true;
        break;
      case 'terse':
        this.terse = true;
        break;
      case 'sorted':
        this.sorted = true;
        break;
      case 'output':
        if (arg === 'plain') this.mode = 'plain';
        else if (arg === 'save') this.mode = 'save';
        else return this.sessionError(line, `Syntax error: unknown output mode '${arg ?? ''}'`);
        break;
      default:
        break;
    }
    return null;
  }

  // ---------------------------------------------------------------- results

  private result(exitCode: number, stderr: string): CommandResult {
    return { exitCode, stdout: printable(this.out.join('')), stderr: this.quiet ? '' : printable(stderr) };
  }

  private ok(): CommandResult {
    return this.result(0, '');
  }

  private sessionError(line: number, message: string): CommandResult {
    const where = this.restoreMode ? `Error in line ${line}: ` : '';
    return this.result(1, `${PREFIX}${where}${message}\n`);
  }

  private parameter(message: string): CommandResult {
    return this.result(2, `${PREFIX}${message}\n${TRY_HELP}\n`);
  }

  private raw(message: string): CommandResult {
    return this.result(1, `${PREFIX}${message}\n`);
  }

  private signal(signal: 'SIGKILL' | 'SIGSEGV'): CommandResult {
    return { exitCode: signal === 'SIGKILL' ? 137 : 139, stdout: printable(this.out.join('')), stderr: '', signal };
  }

  private failure(f: ParseFailure, line: number): CommandResult {
    switch (f.kind) {
      case 'session':
        return this.sessionError(line, this.restoreMode || f.earlier === undefined ? f.message : `${f.earlier}\n${f.message}`);
      case 'parameter':
        return this.parameter(f.message);
      case 'raw':
        return this.raw(f.message);
    }
  }

  /**
   * An icmp type of the other family (docs/ipset-semantics.md §3.2, measured): ipset 7.17's parser reports the
   * syntax error but returns success with the set name lost. `del`/`test` then fail on
   * their mandatory attributes (the pending batch is lost). `add` goes to ipset_cmd():
   * when the previous command was an add, may_aggregate_ad() strcmp()s the old set name
   * with the lost one (NULL) and segfaults; otherwise the pending (del) batch is sent
   * first, so its kernel error wins, and only then the add fails for the missing name.
   */
  private icmpFamily(cmd: AdtCmd, earlier: string, line: number): CommandResult {
    if (cmd !== 'add') return this.raw(MSG.mandatoryFlagsBug);
    if (this.restoreMode && this.lastCmd === 'add') return this.signal('SIGSEGV');
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    if (this.restoreMode) return this.sessionError(line, MSG.invalidAddSetname);
    // Outside restore mode the swallowed report is printed too.
    return this.raw(`${earlier}\n${MSG.invalidAddSetname}`);
  }

  // ---------------------------------------------------------------- restore

  /** `ipset restore` of `text`. */
  restore(input: string): CommandResult {
    let text = input;
    let len = text.length;
    const words = this.words;
    let pos = 0;
    let line = 0;
    let nextQuote = text.indexOf('"');
    const crash = this.faults.crash;
    while (pos < len) {
      let end = chunkEnd(text, pos);
      if (end < 0) {
        // The chunk ends inside a character: each side keeps its bytes of it.
        text = cutCharacter(text, -1 - end);
        len = text.length;
        nextQuote = text.indexOf('"', pos);
        end = chunkEnd(text, pos);
      }
      line++;
      if (crash !== undefined && line > crash.after) return this.crash(crash.signal);
      const fault = this.faults.hasLineFaults
        ? this.faults.lineFault(line, text.slice(pos, end).replace(/\r?\n$/, ''))
        : undefined;
      if (fault?.side === 'userspace') return this.sessionError(line, fault.message);
      let p = pos;
      while (p < end && isSpace(text.charCodeAt(p))) p++;
      if (p === end || text.charCodeAt(p) === 35) {
        if (fault !== undefined) return this.kernelFaultAfterFlush(line, fault);
        pos = end;
        continue;
      }
      if (text.charCodeAt(p) === 67 && isCommit(text, p, end)) {
        const err = this.commit();
        if (err !== null) return this.sessionError(err.line, err.message);
        if (fault !== undefined) return this.kernelFaultAfterFlush(line, fault);
        pos = end;
        continue;
      }
      if (nextQuote >= 0 && nextQuote < p) nextQuote = text.indexOf('"', p);
      const n = tokenize(text, p, end, words, nextQuote);
      if (n === TOO_LONG) return this.parameter('Line is too long to parse.');
      if (n === MISSING_QUOTE) return this.parameter('Missing close quote!');
      const r = this.execute(words, n, line, fault);
      if (r !== null) return r;
      pos = end;
    }
    if (crash !== undefined) return this.crash(crash.signal);
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    return this.ok();
  }

  private crash(signal: 'SIGKILL' | 'SIGSEGV'): CommandResult {
    this.commit();
    return this.signal(signal);
  }

  private kernelFaultAfterFlush(line: number, fault: LineFault): CommandResult {
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    return this.sessionError(line, fault.message);
  }

  /** A single command line (`ipset add a 1.2.3.4`): executed and sent at once. */
  command(words: string[]): CommandResult {
    const r = this.execute(words, words.length, 0, undefined);
    if (r !== null) return r;
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    return this.ok();
  }

  // ---------------------------------------------------------------- batching

  /** ipset_commit(): sends the pending add/del batch; the first failing element stops it. */
  private commit(): KernelFailure | null {
    const b = this.batch;
    if (b === null) return null;
    this.batch = null;
    const first = b.elems[0] as Elem;
    if (this.faults.takeBusy()) return { line: first.line, message: MSG.busy };
    const slot = this.state.slot(b.setName);
    if (slot === undefined) return { line: first.line, message: MSG.setMissing };
    const add = b.cmd === 'add';
    const content = slot.content;
    for (const e of b.elems) {
      if (e.fault !== null) return { line: e.line, message: e.fault };
      const err = content.kind === 'list' ? content.apply(e, add, b.exist, this.state) : content.apply(e, add, b.exist);
      if (err !== null) return { line: e.line, message: err };
    }
    return null;
  }

  private view(name: string): SetView | undefined {
    return this.cache.get(name) ?? this.state.slot(name)?.content.view;
  }

  // ---------------------------------------------------------------- one line

  private execute(words: string[], n: number, line: number, fault: LineFault | undefined): CommandResult | null {
    let count = n;
    for (let i = 0; i < count; ) {
      const opt = matchEnvOpt(words[i] as string);
      if (opt === undefined) {
        i++;
        continue;
      }
      const name = words[i] as string;
      words.copyWithin(i, i + 1, count);
      count--;
      let arg: string | undefined;
      if (opt === 'output' || opt === 'file') {
        if (i >= count) return this.parameter(`Missing mandatory argument to option ${name}`);
        arg = words[i];
        words.copyWithin(i, i + 1, count);
        count--;
      }
      const r = this.setEnv(opt, arg, line);
      if (r !== null) return r;
    }
    if (count === 0) return this.parameter(MSG.noCommand);
    const first = words[0] as string;
    const cmd = matchCommand(first);
    if (cmd === undefined) return this.parameter(`No command specified: unknown argument ${first}`);
    const argc = count - 1;
    try {
      switch (cmd) {
        case 'restore':
        case 'help':
        case 'version':
          if (this.restoreMode) return this.parameter(`Command \`${cmd}' is invalid in restore mode.`);
          return this.parameter(`Command \`${cmd}' is not supported here`);
        case 'quit':
          this.batch = null;
          return this.ok();
        case 'create':
          return this.create(words, count, argc, line, fault);
        case 'add':
        case 'del':
          return this.adt(cmd, words, count, argc, line, fault);
        case 'test':
          return this.test(words, count, argc, line, fault);
        case 'destroy':
        case 'flush':
        case 'list':
        case 'save':
          return this.optionalName(cmd, words, count, argc, line, fault);
        case 'rename':
        case 'swap':
          return this.twoNames(cmd, words, count, argc, line, fault);
      }
    } catch (e) {
      if (e instanceof ParseFailure) return this.failure(e, line);
      throw e;
    }
  }

  private arity(cmd: Command, argc: number, need: number): CommandResult | null {
    if (argc < 1 && need >= 1) return this.parameter(`Missing mandatory argument to command ${cmd}`);
    if (argc < 2 && need >= 2) return this.parameter(`Missing second mandatory argument to command ${cmd}`);
    return null;
  }

  /** Flushes the pending batch before a non-aggregatable command, then applies the line fault. */
  private beforeCommand(cmd: Command, line: number, fault: LineFault | undefined): CommandResult | null {
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    this.lastCmd = cmd;
    if (fault !== undefined) return this.sessionError(line, fault.message);
    return null;
  }

  private create(words: string[], count: number, argc: number, line: number, fault: LineFault | undefined): CommandResult | null {
    const a = this.arity('create', argc, 2);
    if (a !== null) return a;
    const req = parseCreate(words, 1, count, this.initval);
    const b = this.beforeCommand('create', line, fault);
    if (b !== null) return b;
    if (req.tooBig && !this.state.slot(req.name)) return this.sessionError(line, MSG.noMemory);
    const err = this.state.create(req.name, req.content, this.exist);
    if (err !== null) return this.sessionError(line, err);
    if (!this.cache.has(req.name)) {
      const c = req.content;
      this.cache.set(req.name, c.kind === 'list' ? c.view : { type: c.type, family: c.opts.family });
    }
    return null;
  }

  private adt(cmd: 'add' | 'del', words: string[], count: number, argc: number, line: number, fault: LineFault | undefined): CommandResult | null {
    const a = this.arity(cmd, argc, 2);
    if (a !== null) return a;
    const setName = checkSetName(words[1] as string);
    const view = this.view(setName);
    if (view === undefined) return this.sessionError(line, MSG.setMissing);
    const e = parseAdt(words, 2, count, cmd as AdtCmd, view);
    if (e.familyError !== null) return this.icmpFamily(cmd, e.familyError, line);
    e.line = line;
    if (fault !== undefined) e.fault = fault.message;
    const b = this.batch;
    if (b !== null && b.cmd === cmd && b.setName === setName && this.restoreMode) {
      if (b.length + e.need <= BUFFER_SIZE) {
        b.elems.push(e);
        b.length += e.size;
        this.lastCmd = cmd;
        return null;
      }
    }
    const err = this.commit();
    if (err !== null) return this.sessionError(err.line, err.message);
    this.lastCmd = cmd;
    this.batch = { cmd, setName, exist: this.exist, length: batchHeaderSize(setName) + e.size, elems: [e] };
    return null;
  }

  private test(words: string[], count: number, argc: number, line: number, fault: LineFault | undefined): CommandResult | null {
    const a = this.arity('test', argc, 2);
    if (a !== null) return a;
    const setName = checkSetName(words[1] as string);
    const view = this.view(setName);
    if (view === undefined) return this.sessionError(line, MSG.setMissing);
    const e = parseAdt(words, 2, count, 'test', view);
    if (e.familyError !== null) return this.icmpFamily('test', e.familyError, line);
    const b = this.beforeCommand('test', line, fault);
    if (b !== null) return b;
    const slot = this.state.slot(setName);
    if (slot === undefined) return this.sessionError(line, MSG.setMissing);
    const present = slot.content.test(e);
    if (present) {
      if (this.quiet && this.restoreMode) return null;
      return this.result(0, `Warning: ${e.text} is in set ${setName}.\n`);
    }
    return this.result(1, `${e.text} is NOT in set ${setName}.\n`);
  }

  private optionalName(
    cmd: 'destroy' | 'flush' | 'list' | 'save',
    words: string[],
    count: number,
    argc: number,
    line: number,
    fault: LineFault | undefined,
  ): CommandResult | null {
    if (argc > 1) return this.parameter(`Unknown argument ${words[2] as string}`);
    const name = argc === 1 ? checkSetName(words[1] as string) : undefined;
    void count;
    const b = this.beforeCommand(cmd, line, fault);
    if (b !== null) return b;
    if (cmd === 'destroy') {
      const err = this.state.destroy(name, this.exist);
      if (err !== null) return this.sessionError(line, err);
      if (name === undefined) this.cache.clear();
      else this.cache.delete(name);
      return null;
    }
    if (cmd === 'flush') {
      const err = this.state.flush(name);
      return err === null ? null : this.sessionError(line, err);
    }
    if (this.mode === 'none') this.mode = cmd === 'list' ? 'plain' : 'save';
    let slots;
    if (name === undefined) slots = this.state.ordered();
    else {
      const s = this.state.slot(name);
      if (s === undefined) return this.sessionError(line, MSG.setMissing);
      slots = [s];
    }
    this.out.push(dumpText(slots, { mode: this.mode, names: this.names, terse: this.terse, sorted: this.sorted }));
    return null;
  }

  private twoNames(
    cmd: 'rename' | 'swap',
    words: string[],
    count: number,
    argc: number,
    line: number,
    fault: LineFault | undefined,
  ): CommandResult | null {
    const a = this.arity(cmd, argc, 2);
    if (a !== null) return a;
    if (argc > 2) return this.parameter(`Unknown argument ${words[3] as string}`);
    void count;
    const from = checkSetName(words[1] as string);
    const to = checkSetName(words[2] as string);
    const b = this.beforeCommand(cmd, line, fault);
    if (b !== null) return b;
    const err = cmd === 'rename' ? this.state.rename(from, to) : this.state.swap(from, to);
    if (err !== null) return this.sessionError(line, err);
    const x = this.cache.get(from);
    const y = this.cache.get(to);
    if (cmd === 'rename') {
      this.cache.delete(from);
      if (x !== undefined) this.cache.set(to, x);
    } else if (x !== undefined && y !== undefined) {
      // ipset_cache_swap(): only when both names are cached; otherwise the cache stays
      // as it was, a stale entry included (ipset 7.17).
      this.cache.set(from, y);
      this.cache.set(to, x);
    }
    return null;
  }
}

/** `COMMIT\n` or `COMMIT\r\n` exactly (after leading whitespace). */
function isCommit(text: string, p: number, end: number): boolean {
  if (!text.startsWith('COMMIT', p)) return false;
  const rest = end - p - 6;
  if (rest === 1) return text.charCodeAt(p + 6) === 10;
  if (rest === 2) return text.charCodeAt(p + 6) === 13 && text.charCodeAt(p + 7) === 10;
  return false;
}

