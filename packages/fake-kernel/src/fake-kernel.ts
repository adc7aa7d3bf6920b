/**
 * `FakeKernel`: an in-memory model of a network namespace's ipsets as ipset 7.17 and
 * Linux 6.x handle them (`docs/ipset-semantics.md`), with faults on demand.
 *
 * What is modelled exactly: command forms and prefix matching, `-exist` persistence and
 * the rule that a batch takes it when it starts, fgets line chunks, COMMIT rules,
 * batching into 4096-byte messages with the docs/ipset-semantics.md §2.4 capacity rule, userspace vs kernel
 * errors and what survives each, exit codes and stderr texts, references, slot order,
 * canonical members, save/list formats.
 *
 * Deterministic stand-ins for what is random in the real kernel (normalise these when
 * comparing with a real kernel):
 * - members of hash sets print in insertion order (real: hash order) — sort members within a set;
 * - `initval` is an FNV-1a hash of the set name and the number of creates so far;
 * - `Size in memory` follows docs/ipset-semantics.md §5.2's no-collision formula;
 * - `hashsize` doubles whenever a set holds more than 3 entries per bucket (real growth is
 *   random-hash dependent; identical below 3,073 entries with the default 1024);
 * - element timeouts never count down (no clock); `forceadd` evicts the oldest entry;
 * - only `localhost` resolves as a host name;
 * - set types other than hash:ip, hash:net, hash:ip,port and list:set are refused with
 *   ``Syntax error: typename 'X' is not modelled by the fake kernel``.
 *
 * Why one file: it is the kernel's front door: one class whose methods are the commands a
 * port sends (restore, save, list, single commands) and the fault switches tests set; the
 * behaviour behind each lives in `fake/` (one C behaviour per file), so what remains here
 * is the state they share and how a command reaches it.
 */
import { type CommandResult, type ErrorSide, IpsetsError, quote } from '@ipsets/core';
import type { EntryData, EntryValue, HashOptions, ListOptions } from './fake/sets.js';
import { HashContent, ListContent } from './fake/sets.js';
import { MSG, PREFIX, TRY_HELP, VERSION_TEXT } from './fake/messages.js';
import { dumpText } from './fake/output.js';
import { printable } from './fake/tokenizer.js';
import { type LineFault, matchCommand, matchEnvOpt, type RunFaults, Session } from './fake/session.js';
import { KERNEL_MAX_SETS, KernelState, Slot } from './fake/state.js';

/** Options of {@link FakeKernel}. */
export interface FakeKernelOptions {
  /** Maximal number of sets (default 65,472 like the real kernel; tests may use a small number). */
  maxSets?: number;
}

/** What an injected failure says and who "caught" it. */
export interface FaultSpec {
  /** The message after `Error in line N: ` (e.g. `Hash is full, cannot add more elements`). */
  message: string;
  /**
   * `kernel` (default): the pending batch before the line is applied, and for add/del lines
   * the batch up to the line; `userspace`: the pending batch is lost.
   */
  side?: ErrorSide;
}

/** Signals a crash fault ends `ipset` with. */
export type CrashSignal = 'SIGKILL' | 'SIGSEGV';

/** Options of {@link FakeKernel.restore}. */
export interface RestoreOptions {
  /** `ipset -exist restore`. */
  exist?: boolean;
}

/** The JSON form of a kernel's state (see {@link FakeKernel.toJSON}). */
export interface FakeKernelJSON {
  format: 'ipsets-fake-kernel/1';
  maxSets: number;
  seq: number;
  slots: (SlotJSON | null)[];
}

interface SlotJSON {
  name: string;
  iptRefs: number;
  type: string;
  options: Record<string, unknown>;
  entries?: [number | string, number | Record<string, unknown>][];
  members?: string[];
  data?: [string, Record<string, unknown>][];
}

interface MatchFault extends LineFault {
  regex: RegExp;
}

/** FNV-1a 32 of a string (the initval stand-in). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A fake kernel (one network namespace) with the ipset 7.17 userspace tool in front of it. */
export class FakeKernel {
  private state: KernelState;
  private lineFaults = new Map<number, LineFault>();
  private matchFaults: MatchFault[] = [];
  private busyCount = 0;
  private crash: { after: number; signal: CrashSignal } | undefined;
  private hangArmed = false;

  constructor(options: FakeKernelOptions = {}) {
    const maxSets = options.maxSets ?? KERNEL_MAX_SETS;
    if (!Number.isInteger(maxSets) || maxSets < 0) {
      throw new IpsetsError('INVALID_ARGUMENT', `maxSets must be a non-negative integer, got ${quote(maxSets)}`);
    }
    this.state = new KernelState(maxSets);
  }

  // ------------------------------------------------------------------ commands

  /** `ipset restore` (with `-exist` when `options.exist`) of `text`. Synchronous. */
  restore(text: string, options: RestoreOptions = {}): CommandResult {
    const session = this.newSession(true, options.exist ?? false, true);
    return session.restore(text);
  }

  /** `ipset save [name]`. */
  save(name?: string): CommandResult {
    return this.exec(name === undefined ? ['save'] : ['save', name]);
  }

  /** `ipset list [name]` (plain). */
  list(name?: string): CommandResult {
    return this.exec(name === undefined ? ['list'] : ['list', name]);
  }

  /** `ipset list -n`. */
  listNames(): CommandResult {
    return this.exec(['list', '-n']);
  }

  /** `ipset list -t`. */
  listHeaders(): CommandResult {
    return this.exec(['list', '-t']);
  }

  /**
   * Runs an `ipset` command line (without the program name), e.g.
   * `['-exist', 'restore']`, `['list', '-o', 'save']`, `['add', 'a', '1.2.3.4']`;
   * `stdin` feeds `restore`. Non-restore commands report errors without line numbers.
   */
  exec(argv: readonly string[], stdin = ''): CommandResult {
    const words = [...argv];
    const env: [ReturnType<typeof matchEnvOpt>, string | undefined][] = [];
    for (let i = 0; i < words.length; ) {
      const opt = matchEnvOpt(words[i] as string);
      if (opt === undefined) {
        i++;
        continue;
      }
      const name = words[i] as string;
      words.splice(i, 1);
      let arg: string | undefined;
      if (opt === 'output' || opt === 'file') {
        if (i >= words.length) return parameterProblem(`Missing mandatory argument to option ${name}`);
        arg = words.splice(i, 1)[0];
      }
      env.push([opt, arg]);
    }
    if (words.length === 0) return parameterProblem(MSG.noCommand);
    const first = words[0] as string;
    const cmd = matchCommand(first);
    if (cmd === undefined) return parameterProblem(`No command specified: unknown argument ${first}`);
    if (cmd === 'version') return { exitCode: 0, stdout: `${VERSION_TEXT}\n`, stderr: '' };
    if (cmd === 'help') return { exitCode: 0, stdout: `${VERSION_TEXT}\n\nUsage: ipset [options] COMMAND\n`, stderr: '' };
    if (cmd === 'quit') return { exitCode: 0, stdout: '', stderr: '' };
    const isRestore = cmd === 'restore';
    if (isRestore && words.length > 1) return parameterProblem(`Unknown argument ${words[1] as string}`);
    const session = this.newSession(isRestore, false, isRestore);
    for (const [opt, arg] of env) {
      if (opt === 'file') return parameterProblem('-file is not supported by the fake ipset; use stdin');
      const r = opt === undefined ? null : session.setEnv(opt, arg);
      if (r !== null) return r;
    }
    return isRestore ? session.restore(stdin) : session.command(words);
  }

  private newSession(restoreMode: boolean, exist: boolean, withFaults: boolean): Session {
    const faults: RunFaults | undefined = withFaults ? this.takeRunFaults() : undefined;
    return new Session(
      this.state,
      { exist, restoreMode, initval: (name) => fnv1a(`${name}#${this.state.seq}`) },
      faults,
    );
  }

  private takeRunFaults(): RunFaults {
    const lineFaults = this.lineFaults;
    this.lineFaults = new Map();
    const crash = this.crash;
    this.crash = undefined;
    const matchFaults = this.matchFaults;
    return {
      hasLineFaults: lineFaults.size > 0 || matchFaults.length > 0,
      lineFault: (line, text) => {
        const byLine = lineFaults.get(line);
        if (byLine !== undefined) {
          lineFaults.delete(line);
          return byLine;
        }
        const i = matchFaults.findIndex((f) => {
          f.regex.lastIndex = 0;
          return f.regex.test(text);
        });
        if (i < 0) return undefined;
        const [f] = matchFaults.splice(i, 1);
        return f;
      },
      takeBusy: () => {
        if (this.busyCount === 0) return false;
        this.busyCount--;
        return true;
      },
      ...(crash === undefined ? {} : { crash }),
    };
  }

  // ------------------------------------------------------------------ references

  /** Adds an iptables-style reference (`-m set --match-set name`): the set cannot be destroyed or renamed. */
  reference(name: string): void {
    this.slotOrThrow(name).iptRefs++;
  }

  /** Removes one iptables-style reference. */
  unreference(name: string): void {
    const s = this.slotOrThrow(name);
    if (s.iptRefs === 0) throw new IpsetsError('INVALID_ARGUMENT', `set ${quote(name)} has no iptables reference to remove`);
    s.iptRefs--;
  }

  private slotOrThrow(name: string): Slot {
    const s = this.state.slot(name);
    if (s === undefined) throw new IpsetsError('SET_NOT_FOUND', `no set named ${quote(name)} in the fake kernel`);
    return s;
  }

  // ------------------------------------------------------------------ faults

  /** The next restore fails at input line `line` (1-based fgets line) with `fault`. */
  failLine(line: number, fault: FaultSpec): this {
    if (!Number.isInteger(line) || line < 1) throw new IpsetsError('INVALID_ARGUMENT', `line must be a positive integer, got ${quote(line)}`);
    this.lineFaults.set(line, { message: fault.message, side: fault.side ?? 'kernel' });
    return this;
  }

  /** The next input line (in this or a later restore) matching `regex` fails with `fault`. */
  failNextMatching(regex: RegExp, fault: FaultSpec): this {
    this.matchFaults.push({ regex, message: fault.message, side: fault.side ?? 'kernel' });
    return this;
  }

  /**
   * The next `times` add/del batches sent fail with `Kernel error received: Device or resource busy`
   * (kernel side, reported at the batch's first line, nothing of that batch applied).
   */
  busy(times = 1): this {
    this.busyCount += times;
    return this;
  }

  /** The next restore applies input lines 1..`lines` only, then dies by `signal` (exit 137/139, no stderr). */
  crashAfter(lines: number, signal: CrashSignal = 'SIGKILL'): this {
    this.crash = { after: lines, signal };
    return this;
  }

  /** The next restore through a fake port never finishes until its AbortSignal fires. */
  hang(): this {
    this.hangArmed = true;
    return this;
  }

  /** Consumes an armed {@link hang} (used by the fake port). */
  takeHang(): boolean {
    const h = this.hangArmed;
    this.hangArmed = false;
    return h;
  }

  /** Disarms every fault. */
  clearFaults(): this {
    this.lineFaults.clear();
    this.matchFaults = [];
    this.busyCount = 0;
    this.crash = undefined;
    this.hangArmed = false;
    return this;
  }

  // ------------------------------------------------------------------ inspection

  /** Set names in `ipset list -n` order. */
  setNames(): string[] {
    return this.state.ordered().map((s) => s.name);
  }

  /** Members of a set as `ipset save` prints them (insertion order), or undefined. */
  members(name: string): string[] | undefined {
    const s = this.state.slot(name);
    return s === undefined ? undefined : [...s.content.memberLines()];
  }

  /** References of a set (list:set memberships + iptables), or undefined. */
  references(name: string): number | undefined {
    return this.state.slot(name)?.references;
  }

  /** `ipset save` text of everything (same as `save().stdout`). */
  saveText(): string {
    return printable(dumpText(this.state.ordered(), { mode: 'save', names: false, terse: false }));
  }

  // ------------------------------------------------------------------ persistence

  /** The state as JSON (sets in slot order with members and iptables references; faults are not kept). */
  toJSON(): FakeKernelJSON {
    return {
      format: 'ipsets-fake-kernel/1',
      maxSets: this.state.maxSets,
      seq: this.state.seq,
      slots: this.state.slots.map((s) => (s === undefined ? null : slotToJSON(s))),
    };
  }

  /** Rebuilds a kernel from {@link toJSON}'s output. */
  static fromJSON(json: unknown): FakeKernel {
    const j = json as Partial<FakeKernelJSON> | null;
    if (j === null || typeof j !== 'object' || j.format !== 'ipsets-fake-kernel/1' || !Array.isArray(j.slots)) {
      throw new IpsetsError('INVALID_INPUT', 'not a fake kernel state: expected {"format":"ipsets-fake-kernel/1", …}');
    }
    const k = new FakeKernel({ maxSets: j.maxSets ?? KERNEL_MAX_SETS });
    const st = k.state;
    j.slots.forEach((sj, i) => {
      if (sj === null) return;
      const slot = new Slot(sj.name, contentFromJSON(sj));
      slot.iptRefs = sj.iptRefs;
      st.slots[i] = slot;
      st.byName.set(sj.name, slot);
    });
    for (const s of st.byName.values()) {
      if (s.content.kind !== 'list') continue;
      for (const m of s.content.members) {
        const member = st.slot(m);
        if (member !== undefined) member.listRefs++;
      }
    }
    st.seq = j.seq ?? 0;
    st.resetFreeSlot();
    return k;
  }
}

function parameterProblem(message: string): CommandResult {
  return { exitCode: 2, stdout: '', stderr: `${PREFIX}${message}\n${TRY_HELP}\n` };
}

function dataToJSON(d: EntryData): Record<string, unknown> {
  const o: Record<string, unknown> = { ...d };
  if (d.packets !== undefined) o.packets = String(d.packets);
  if (d.bytes !== undefined) o.bytes = String(d.bytes);
  return o;
}

function dataFromJSON(o: Record<string, unknown>): EntryData {
  const d = { ...o } as unknown as EntryData & { packets?: unknown; bytes?: unknown };
  if (o.packets !== undefined) d.packets = BigInt(o.packets as string);
  if (o.bytes !== undefined) d.bytes = BigInt(o.bytes as string);
  return d as EntryData;
}

function slotToJSON(s: Slot): SlotJSON {
  const c = s.content;
  if (c.kind === 'list') {
    return {
      name: s.name,
      iptRefs: s.iptRefs,
      type: c.type,
      options: { ...c.opts },
      members: [...c.members],
      data: [...c.data].map(([k, v]) => [k, dataToJSON(v)]),
    };
  }
  return {
    name: s.name,
    iptRefs: s.iptRefs,
    type: c.type,
    options: { ...c.opts },
    entries: [...c.entries].map(([k, v]) => [k, typeof v === 'number' ? v : dataToJSON(v)]),
  };
}

function contentFromJSON(sj: SlotJSON): HashContent | ListContent {
  if (sj.type === 'list:set') {
    const c = new ListContent(sj.options as unknown as ListOptions);
    for (const m of sj.members ?? []) c.members.push(m);
    for (const [k, v] of sj.data ?? []) c.data.set(k, dataFromJSON(v));
    return c;
  }
  if (sj.type !== 'hash:ip' && sj.type !== 'hash:net' && sj.type !== 'hash:ip,port') {
    throw new IpsetsError('INVALID_INPUT', `unknown set type ${quote(sj.type)} in fake kernel state`);
  }
  const c = new HashContent(sj.type, sj.options as unknown as HashOptions);
  for (const [k, v] of sj.entries ?? []) {
    c.restoreEntry(k, (typeof v === 'number' ? v : dataFromJSON(v)) as EntryValue);
  }
  return c;
}
