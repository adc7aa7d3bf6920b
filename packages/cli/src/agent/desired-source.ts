/**
 * The desired-state file as the agent follows it, however it is updated:
 *
 * - a Kubernetes ConfigMap volume swaps the `..data` symlink (`desired.yaml ->
 *   ..data/desired.yaml`, `..data -> ..2026_12_01_…`; an update renames a new
 *   `..data_tmp` over `..data`), so no event ever names the file itself;
 * - editors and `mv` replace the file (rename over it);
 * - `echo > file` writes it in place.
 *
 * Any event in the file's folder (or in the folder its symlink resolves to) schedules
 * a debounced check; every interval tick checks too, so a missed or dropped event never
 * leaves the agent stale. A check reads the bytes and compares their SHA-256 with the
 * last ones seen: unchanged text is no change, and is never parsed again. A file whose
 * stat stamp is that of a read that vouches for it (`file-stamp.ts`: same inode, size
 * and times, last changed well before that read) is not even read again: at a million
 * members that read and digest were 14 MB and ~60 ms of every interval tick. The file is
 * read through the same bounded reader as every command (`readInputText`: regular
 * files only, no FIFO ever waited on, the size limit, strict UTF-8), so a bad file is
 * refused with the message `apply` gives. Only
 * digests are kept between checks, never a copy of the file (14 MB at a million
 * members, and as much again for a bad file being reported). A file that disappears or turns invalid keeps
 * the last good state in force and is reported once per distinct content, once it
 * stayed so for a debounce (a half-written file is not a problem yet).
 *
 * A folder of parts (a projected volume of several ConfigMaps, see `desired/parts`) is
 * followed the same way: the folder is watched, every check reads each part through
 * the same bounded reader and parses only those whose digest changed; a bad part keeps
 * its last good content in force.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IpsetsError, isIpsetsError } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';
import { readInputText, readInputTextOrThrow } from '../bounded-read.js';
import { fileStamp, sameStamp, settledStamp } from '../file-stamp.js';
import type { FileStamp } from '../file-stamp.js';
import type { InputProblemReason } from '../bounded-read.js';
import { DesiredParts } from '../desired/parts.js';
import type { DesiredPartsOptions } from '../desired/parts.js';
import type { DesiredFile } from '../desired/file.js';

/** What the agent reads its file as, in messages (the same words `apply` uses). */
const WHAT = 'desired-state file';

/** Why the file on disk is not used. */
export type DesiredProblemKind = InputProblemReason | 'invalid';

/** Options of {@link DesiredSource}. */
export interface DesiredSourceOptions {
  /** Absolute path of the file (may be a symlink). */
  path: string;
  /** Wait this long after an event before checking (ms). */
  debounceMs: number;
  /** Parses and validates the text; throws an IpsetsError for a bad file. */
  load(text: string): DesiredState;
  /** A new valid desired state (different bytes). */
  onChange(state: DesiredState): void;
  /**
   * The file is missing (`missing`), cannot be read as a desired-state file (the
   * bounded reader's reason: `not-regular`, `too-large`, `not-utf8`, `unreadable`) or
   * its content is bad (`invalid`); the last good state stays.
   */
  onProblem(kind: DesiredProblemKind, message: string, error: unknown): void;
  /** The file is valid again after a problem. */
  onRecovered(): void;
  /** Watch the folder (default true). Tests turn it off to play a missed event. */
  watch?: boolean;
  /** Largest file read, in bytes (default: the bounded reader's limit). */
  limit?: number;
  /** The wall clock the file's times are compared with (default `Date.now`; tests move it). */
  now?: () => number;
}

/** What {@link DesiredSource.openFolder} needs besides {@link DesiredSourceOptions}. */
export interface DesiredFolderOptions {
  /** How the parts are read and validated (the owner option, limits). */
  readonly parts?: DesiredPartsOptions;
  /** The desired state of the parts combined. */
  toState(file: DesiredFile): DesiredState;
  /** A part whose bytes changed was parsed again (called before the change, or the problem, is reported). */
  onPartRead?(file: string): void;
}

/** The last good desired state and whether the file on disk is still usable. */
export class DesiredSource {
  private lastSeen: string | undefined;
  /** The stamp of the file as last read, when that read vouches for it (file-stamp.ts); a check with the same stamp reads nothing. */
  private vouched: FileStamp | undefined;
  private problem: string | undefined;
  private watchers: FSWatcher[] = [];
  private watchedDirs: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private again = false;
  private closed = false;

  private parts: { readonly parts: DesiredParts; readonly folder: DesiredFolderOptions } | undefined;

  private constructor(
    private readonly options: Omit<DesiredSourceOptions, 'load'> & Partial<Pick<DesiredSourceOptions, 'load'>>,
    private state: DesiredState,
    text: string | undefined,
    vouched?: FileStamp,
  ) {
    this.lastSeen = text === undefined ? undefined : digestOf(text);
    this.vouched = vouched;
  }

  /**
   * Reads and validates the file once; a bad file at start is the caller's bad input.
   *
   * @throws IpsetsError from `load`, or `INVALID_INPUT` when the file cannot be read.
   */
  static async open(options: DesiredSourceOptions): Promise<DesiredSource> {
    const started = (options.now ?? Date.now)();
    const stamp = await fileStamp(options.path);
    const text = await readInputTextOrThrow(options.path, readOptions(options));
    return new DesiredSource(options, options.load(text), text, settledStamp(stamp, started));
  }

  /**
   * Reads and validates every part of the folder at `options.path` once; a bad or
   * conflicting part at start is the caller's bad input.
   *
   * @throws IpsetsError `INVALID_INPUT` naming every bad part or conflict, or a folder without parts.
   */
  static async openFolder(options: Omit<DesiredSourceOptions, 'load'>, folder: DesiredFolderOptions): Promise<DesiredSource> {
    const parts = await DesiredParts.open(options.path, {
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...folder.parts,
    });
    const source = new DesiredSource(options, folder.toState(parts.file), undefined);
    source.parts = { parts, folder };
    return source;
  }

  /** The parts in force (a folder), or undefined (one file). */
  get partFiles(): readonly string[] | undefined {
    return this.parts?.parts.files;
  }

  /** The desired state in force (the last good one). */
  get desired(): DesiredState {
    return this.state;
  }

  /** Why the file on disk is not used, or undefined when it is (the reader's or the parser's message). */
  get fileProblem(): string | undefined {
    return this.problem;
  }

  /**
   * Starts watching (no-op when `watch: false`), then checks the file once: a change
   * that landed between {@link DesiredSource.open}'s read and the watch would otherwise
   * wait for the next interval tick.
   */
  async start(): Promise<void> {
    if (this.options.watch === false) return;
    await this.rewatch();
    await this.check();
  }

  /** Reads the file and applies what changed; concurrent calls collapse into one more check. */
  check(): Promise<void> {
    if (this.checking !== undefined) {
      this.again = true;
      return this.checking;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        await this.checkOnce();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** Stops watching. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), this.options.debounceMs);
  }

  private async checkOnce(): Promise<void> {
    if (this.parts !== undefined) return this.checkParts(this.parts.parts, this.parts.folder);
    // The stamp before the read: a write after it changes the stamp, so the next check reads.
    const started = (this.options.now ?? Date.now)();
    const stamp = await fileStamp(this.options.path);
    if (sameStamp(stamp, this.vouched)) {
      if (this.options.watch !== false) await this.rewatch();
      return;
    }
    this.vouched = undefined;
    const read = await readInputText(this.options.path, readOptions(this.options));
    if (!read.ok) {
      // No text to digest: the problem's message tells one refusal from another.
      this.report(read.reason, read.error.message, read.error, undefined);
      return;
    }
    if (this.options.watch !== false) await this.rewatch();
    const { text } = read;
    const seen = digestOf(text);
    if (seen === this.lastSeen) {
      this.vouched = settledStamp(stamp, started);
      return;
    }
    let next: DesiredState;
    try {
      next = this.options.load!(text);
    } catch (error) {
      const message = isIpsetsError(error) ? error.message : String(error);
      this.report('invalid', message, error, seen);
      return;
    }
    this.lastSeen = seen;
    this.unsettledKey = undefined;
    if (this.problem !== undefined) {
      this.problem = undefined;
      this.options.onRecovered();
    }
    this.state = next;
    this.vouched = settledStamp(stamp, started);
    this.options.onChange(next);
  }

  private async checkParts(parts: DesiredParts, folder: DesiredFolderOptions): Promise<void> {
    const result = await parts.check();
    if (this.options.watch !== false) await this.rewatch();
    for (const file of result.reread) folder.onPartRead?.(file);
    if (result.missing !== undefined) {
      const error = new IpsetsError('INVALID_INPUT', result.missing, { details: { source: this.options.path, problems: [] } });
      this.report('missing', result.missing, error, digestOf(result.missing));
      return;
    }
    if (result.changed) {
      let next: DesiredState;
      try {
        next = folder.toState(parts.file);
      } catch (error) {
        const message = isIpsetsError(error) ? error.message : String(error);
        this.report('invalid', message, error, digestOf(message));
        return;
      }
      this.state = next;
      this.options.onChange(next);
    }
    if (result.problems.length > 0) {
      // Every part not in force as it is on disk, each message naming its file.
      const message = result.problems.map((p) => p.message).join('\n');
      const error = new IpsetsError('INVALID_INPUT', message, { details: { source: this.options.path, problems: result.problems.map((p) => ({ path: p.file, message: p.message })) } });
      this.report('invalid', message, error, digestOf(message));
      return;
    }
    this.unsettledKey = undefined;
    if (this.problem !== undefined) {
      this.problem = undefined;
      this.lastProblemKey = undefined;
      this.options.onRecovered();
    }
  }

  private report(kind: DesiredProblemKind, message: string, error: unknown, seen: string | undefined): void {
    // Report each distinct bad content once, not on every tick.
    const key = `${kind}\0${seen ?? message}`;
    if (this.problem !== undefined && this.lastProblemKey === key) return;
    // An in-place write is a truncate and then a write: a check in between sees an empty
    // or partial file. Only bytes that are still there one debounce later are reported.
    if (this.unsettledKey !== key) {
      this.unsettledKey = key;
      this.schedule();
      return;
    }
    this.unsettledKey = undefined;
    this.lastProblemKey = key;
    this.lastSeen = seen;
    this.problem = message;
    this.options.onProblem(kind, message, error);
  }

  private lastProblemKey: string | undefined;
  private unsettledKey: string | undefined;

  /** Watches the file's folder and, when it is a symlink, the folder it resolves to (re-resolved after every swap). */
  private async rewatch(): Promise<void> {
    if (this.closed) return;
    // A folder of parts: the folder itself (a `..data` swap, a part renamed into place, an in-place write).
    const dirs = [this.parts === undefined ? dirname(this.options.path) : this.options.path];
    const real = this.parts === undefined ? await realpath(this.options.path).catch(() => undefined) : undefined;
    if (real !== undefined && dirname(real) !== dirs[0]) dirs.push(dirname(real));
    if (dirs.join('\0') === this.watchedDirs.join('\0')) return;
    for (const w of this.watchers) w.close();
    this.watchers = [];
    for (const dir of dirs) {
      try {
        const w = watch(dir, () => this.schedule());
        // A folder that goes away ends its watcher; the interval check carries on.
        w.on('error', () => w.close());
        this.watchers.push(w);
      } catch {
        // Not watchable (gone, or no inotify left): the interval check still sees changes.
      }
    }
    this.watchedDirs = dirs;
  }
}

function readOptions(options: Pick<DesiredSourceOptions, 'limit'>): { what: string; limit?: number } {
  return { what: WHAT, ...(options.limit === undefined ? {} : { limit: options.limit }) };
}

/** SHA-256 of the file's text. */
function digestOf(content: string): string {
  return createHash('sha256').update(content).digest('base64');
}
