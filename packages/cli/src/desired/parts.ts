/**
 * A desired state made of parts: every `*.yaml`, `*.yml` and `*.json` of a folder (and
 * the `.gz` of each) read as one desired state. The folder is a projected volume of
 * several ConfigMaps (one part each, updated on its own), or a folder a producer writes.
 *
 * - Entries whose name starts with a dot are never parts: the kubelet's `..data` and
 *   `..<timestamp>` entries, a producer's temporary file before it is renamed in place.
 *   In a kubelet volume every part is read from the folder `..data` points to when the
 *   read starts, so one read never mixes two versions of the volume.
 * - Every part is read through the bounded reader (regular files only, at most
 *   {@link MAX_INPUT_BYTES}, strict UTF-8); a `.gz` part is decompressed as a stream that is
 *   cut at {@link MAX_DECOMPRESSED_PART_BYTES} of text (a decompression bomb costs that much
 *   memory at most), and its problems are located in the decompressed text.
 * - Each part is validated on its own (a list may name a set another part declares);
 *   then the parts together: one owner prefix and naming scheme in every part, each set
 *   declared in one part only, every list member declared by some part, distinct kernel
 *   names. A problem names the file(s) it is in.
 * - {@link DesiredParts} follows the folder for the agent: each part's SHA-256 is kept, so
 *   a check parses only the parts whose bytes changed; a bad part, or one whose new
 *   content conflicts with the others, keeps its last good content in force.
 *
 * Why one file: reading a folder as one desired state is one rule with one cache: which
 * entries are parts, how each is read and checked, how they combine, and which last good
 * content stays in force; the agent's follower and the one-shot read share all of it.
 */
import { createHash } from 'node:crypto';
import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { IpsetsError, isIpsetsError, kernelName, prefixedName, quote } from '@ipsets/core';
import { MAX_INPUT_BYTES, decodeUtf8, readInputFile } from '../bounded-read.js';
import { fileStamp, sameStamp, settledStamp } from '../file-stamp.js';
import type { FileStamp } from '../file-stamp.js';
import { parseDesiredTextWithRefs } from './file.js';
import type { DesiredFile, DesiredFileSet, ExternalSetRef, ValidateDesiredOptions } from './file.js';
import { formatBytes } from '../format.js';

/**
 * The most text a `.gz` part may expand to: 64 MiB, about 3,000,000 members (a
 * ConfigMap holds 1 MiB, which gzip makes 5–10 MiB of desired-state text).
 */
export const MAX_DECOMPRESSED_PART_BYTES = 64 * 1024 * 1024;

/** The names a part may have: `.yaml`, `.yml`, `.json`, each optionally gzipped (`.gz`). */
const PART_NAME = /\.(ya?ml|json)(\.gz)?$/i;

/** Options of {@link loadDesiredParts} and {@link DesiredParts}. */
export interface DesiredPartsOptions extends ValidateDesiredOptions {
  /** Largest part read, in bytes (default {@link MAX_INPUT_BYTES}). */
  readonly limit?: number;
  /** Largest decompressed text of a `.gz` part (default {@link MAX_DECOMPRESSED_PART_BYTES}). */
  readonly decompressedLimit?: number;
  /** The wall clock the parts' file times are compared with (default `Date.now`; tests move it). */
  readonly now?: () => number;
}

/** One part found in the folder. */
interface PartEntry {
  /** The part as the user sees it: `DIR/name` (used in every message). */
  readonly file: string;
  /** Where its bytes are read: the same, or `DIR/..data/name` resolved once per read. */
  readonly readPath: string;
}

/** A validated part. */
interface GoodPart {
  readonly file: string;
  readonly digest: string;
  readonly desired: DesiredFile;
  readonly external: readonly ExternalSetRef[];
}

/** One problem of the folder, with the part it is about. */
export interface PartProblem {
  /** The part (`DIR/name`). */
  readonly file: string;
  readonly message: string;
}

/** What one {@link DesiredParts.check} saw. */
export interface PartsCheck {
  /** The desired state in force changed (see {@link DesiredParts.file}). */
  readonly changed: boolean;
  /** Parts whose bytes changed and were parsed again. */
  readonly reread: readonly string[];
  /** Parts not in force as they are on disk (bad, or conflicting with the others): their last good content stays. */
  readonly problems: readonly PartProblem[];
  /** The folder itself cannot be read or holds no part: everything stays as it was. */
  readonly missing?: string;
}

function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/**
 * The parts of `dir`, in name order. In a kubelet volume (`..data` present) the names
 * and bytes are those of the folder `..data` points to now.
 *
 * @throws Error from `readdir` when the folder cannot be listed.
 */
async function listParts(dir: string): Promise<{ entries: PartEntry[]; snapshot: string | undefined }> {
  const snapshot = await realpath(join(dir, '..data')).catch(() => undefined);
  const listed = await readdir(snapshot ?? dir);
  const names = listed.filter((name) => !name.startsWith('.') && PART_NAME.test(name)).sort();
  return { entries: names.map((name) => ({ file: join(dir, name), readPath: join(snapshot ?? dir, name) })), snapshot };
}

function cannotList(dir: string, error: unknown): string {
  return `cannot read the desired-state folder ${quote(dir)}: ${(error as Error).message}`;
}

function noParts(dir: string): string {
  return `no desired-state parts in ${quote(dir)}; expected files named *.yaml, *.yml or *.json (or the .gz of each; names starting with "." are skipped)`;
}

/** Gunzips `bytes` as a stream, refusing it as soon as the text passes `limit` bytes. */
async function gunzipBounded(bytes: Buffer, file: string, limit: number): Promise<Buffer> {
  const gunzip = createGunzip();
  const chunks: Buffer[] = [];
  let total = 0;
  const done = new Promise<Buffer>((resolve, reject) => {
    gunzip.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        chunks.length = 0;
        gunzip.destroy();
        reject(
          new IpsetsError(
            'INVALID_INPUT',
            `desired-state part ${quote(file)} expands past ${formatBytes(limit)} when decompressed; expected at most ${formatBytes(limit)} of text${limit === MAX_DECOMPRESSED_PART_BYTES ? ' (about 3,000,000 members)' : ''}; decompression stopped there`,
            { details: { source: file, problems: [] } },
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    gunzip.on('end', () => resolve(Buffer.concat(chunks, total)));
    gunzip.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new IpsetsError('INVALID_INPUT', `desired-state part ${quote(file)} is not valid gzip: ${error.message}; expected gzip data (or a name without .gz)`, {
          cause: error,
          details: { source: file, problems: [] },
        }),
      ),
    );
  });
  gunzip.end(bytes);
  return done;
}

/**
 * A part's bytes as stored (compressed for `.gz`) and their digest, or why they cannot be
 * read. `bytes` is undefined for a part not read again because its stamp vouches for a
 * digest the caller already holds (file-stamp.ts); `vouched` is the stamp a read vouches for.
 */
type ReadPart = { readonly entry: PartEntry } & (
  | { readonly bytes: Buffer | undefined; readonly digest: string; readonly vouched: FileStamp | undefined }
  | { readonly error: unknown }
);

/** The digest a part's stamp vouches for, if its bytes need not be read again. */
type Reuse = (entry: PartEntry, stamp: FileStamp | undefined) => string | undefined;

/**
 * Lists the folder and reads every part through the bounded reader. In a kubelet
 * volume, a `..data` swap during the read (the old folder is deleted under it) makes
 * it start again from the new `..data`, so the parts read are one version of the volume.
 *
 * @throws Error from `readdir` when the folder cannot be listed.
 */
async function readFolder(dir: string, options: DesiredPartsOptions, reuse?: Reuse): Promise<ReadPart[]> {
  for (let attempt = 1; ; attempt++) {
    const { entries, snapshot } = await listParts(dir);
    const read: ReadPart[] = [];
    for (const entry of entries) {
      try {
        const started = (options.now ?? Date.now)();
        const stamp = await fileStamp(entry.readPath);
        const digest = reuse?.(entry, stamp);
        if (digest !== undefined) {
          read.push({ entry, bytes: undefined, digest, vouched: stamp });
          continue;
        }
        const bytes = await readPartBytes(entry, options);
        read.push({ entry, bytes, digest: digestOf(bytes), vouched: settledStamp(stamp, started) });
      } catch (error) {
        read.push({ entry, error });
      }
    }
    if (snapshot === undefined || attempt === 3) return read;
    const now = await realpath(join(dir, '..data')).catch(() => undefined);
    if (now === snapshot) return read;
  }
}

function readPartBytes(entry: PartEntry, options: DesiredPartsOptions): Promise<Buffer> {
  return readInputFile(entry.readPath, { what: 'desired-state part', ...(options.limit === undefined ? {} : { limit: options.limit }) });
}

/** The bytes of a part that was read (a part not read again is never parsed: its digest is one at hand). */
function bytesOf(part: { readonly entry: PartEntry; readonly bytes: Buffer | undefined }): Buffer {
  if (part.bytes === undefined) throw new Error(`internal: ${quote(part.entry.file)} was not read again, but its content is needed`);
  return part.bytes;
}

/** Decompresses (`.gz`), decodes and validates one part's bytes. */
async function parsePart(entry: PartEntry, bytes: Buffer, options: DesiredPartsOptions): Promise<Omit<GoodPart, 'digest'>> {
  const gz = entry.file.toLowerCase().endsWith('.gz');
  const raw = gz ? await gunzipBounded(bytes, entry.file, options.decompressedLimit ?? MAX_DECOMPRESSED_PART_BYTES) : bytes;
  const text = decodeUtf8(raw, entry.file, 'desired-state part');
  const inner = (gz ? entry.file.slice(0, -3) : entry.file).toLowerCase();
  // A folder's parts are named *.json or *.yaml; a FILE given by name may be neither (sniffed).
  const format = inner.endsWith('.json') ? 'json' : inner.endsWith('.yaml') || inner.endsWith('.yml') ? 'yaml' : undefined;
  const { file, external } = parseDesiredTextWithRefs(text, {
    source: entry.file,
    ...(format === undefined ? {} : { format }),
    externalSets: true,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.ownerSource === undefined ? {} : { ownerSource: options.ownerSource }),
  });
  return { file: entry.file, desired: file, external };
}

function messageOfError(error: unknown): string {
  return isIpsetsError(error) ? error.message : String((error as Error)?.message ?? error);
}

/** `"DIR/b.yaml" (sets[0])`. */
function at(file: string, index: number): string {
  return `${quote(file)} (sets[${index}])`;
}

/**
 * The parts together as one desired file, or the problems that keep them apart (each
 * naming its part and, for a conflict, the other part).
 */
function combineParts(parts: readonly GoodPart[]): { ok: true; file: DesiredFile } | { ok: false; problems: PartProblem[] } {
  const problems: PartProblem[] = [];
  const first = parts[0];
  // Only a check can get here (a part removed while every other one is refused): the last part in force stays.
  if (first === undefined) return { ok: false, problems: [{ file: '', message: 'it is the last part in force (every other part is bad)' }] };
  for (const part of parts.slice(1)) {
    if (part.desired.owner !== first.desired.owner) {
      problems.push({
        file: part.file,
        message: `${quote(part.file)} has owner prefix ${quote(part.desired.owner)} but ${quote(first.file)} has ${quote(first.desired.owner)}; expected the same owner prefix in every part (a part that names none has the default, or the one --owner gives)`,
      });
    }
    if (part.desired.scheme !== first.desired.scheme) {
      problems.push({
        file: part.file,
        message: `${quote(part.file)} has naming scheme ${quote(part.desired.scheme)} but ${quote(first.file)} has ${quote(first.desired.scheme)}; expected the same naming scheme in every part`,
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const { owner, scheme } = first.desired;
  const declared = new Map<string, { file: string; index: number }>();
  const kernelNames = new Map<string, { file: string; index: number }>();
  const sets: DesiredFileSet[] = [];
  for (const part of parts) {
    part.desired.sets.forEach((set, index) => {
      const prefixed = prefixedName({ type: set.type, name: set.name });
      const other = declared.get(prefixed);
      if (other !== undefined) {
        problems.push({
          file: part.file,
          message: `set ${quote(set.name)} of type ${set.type} is declared in both ${at(other.file, other.index)} and ${at(part.file, index)}; expected each set in one part only`,
        });
        return;
      }
      declared.set(prefixed, { file: part.file, index });
      const name = kernelName(prefixed, { owner, scheme });
      const same = kernelNames.get(name);
      if (same !== undefined) {
        problems.push({
          file: part.file,
          message: `set ${quote(set.name)} at ${at(part.file, index)} has the same kernel name ${quote(name)} as the set at ${at(same.file, same.index)} under the ${scheme} scheme; expected distinct kernel names (rename one, or use sha256-base36)`,
        });
        return;
      }
      kernelNames.set(name, { file: part.file, index });
      sets.push(set);
    });
  }
  for (const part of parts) {
    for (const ref of part.external) {
      if (declared.has(prefixedName({ type: ref.type, name: ref.name }))) continue;
      const where = ref.line === undefined ? '' : `line ${ref.line}:${ref.column ?? 1}, `;
      problems.push({
        file: part.file,
        message: `${part.file}: ${where}${ref.path}: member set ${quote(ref.name)} of type ${ref.type} is not declared in any part; expected a set declared under sets in one of the parts`,
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, file: { owner, scheme, sets } };
}

function where(dir: string): string {
  return dir.startsWith('the ') ? dir : `desired-state parts in ${quote(dir)}`;
}

/** The one error of a folder whose parts cannot be used: every problem, each naming its file. */
function partsError(dir: string, problems: readonly PartProblem[]): IpsetsError {
  const message =
    problems.length === 1
      ? problems[0]!.message
      : `${where(dir)}: ${problems.length} problems; nothing was applied:\n${problems.map((p) => `  ${p.message.replace(/\n/g, '\n  ')}`).join('\n')}`;
  return new IpsetsError('INVALID_INPUT', message, { details: { source: dir, problems: problems.map((p) => ({ path: p.file, message: p.message })) } });
}

/** Parses every part read; bad ones become problems. */
async function parseAll(read: readonly ReadPart[], options: DesiredPartsOptions): Promise<{ good: GoodPart[]; problems: PartProblem[] }> {
  const good: GoodPart[] = [];
  const problems: PartProblem[] = [];
  for (const part of read) {
    try {
      if ('error' in part) throw part.error;
      good.push({ ...(await parsePart(part.entry, bytesOf(part), options)), digest: part.digest });
    } catch (error) {
      problems.push({ file: part.entry.file, message: messageOfError(error) });
    }
  }
  return { good, problems };
}

/**
 * Reads a folder of parts as one desired file (`ipsets apply DIR`, `plan`, `diff`).
 *
 * @throws IpsetsError `INVALID_INPUT` naming every bad part, every conflict between
 *   parts (both files), or a folder that holds no part.
 */
export async function loadDesiredParts(dir: string, options: DesiredPartsOptions = {}): Promise<DesiredFile> {
  return (await DesiredParts.open(dir, options)).file;
}

/**
 * Reads several desired-state files as the parts of one desired state (`ipsets apply
 * a.yaml b.yaml.gz`): the same rules as a folder's parts, in the order given.
 *
 * @throws IpsetsError `INVALID_INPUT` naming every bad file and every conflict (both files).
 */
export async function loadDesiredPartFiles(files: readonly string[], options: DesiredPartsOptions = {}): Promise<DesiredFile> {
  const read: ReadPart[] = [];
  for (const file of files) {
    try {
      const bytes = await readInputFile(file, { what: 'desired-state file', ...(options.limit === undefined ? {} : { limit: options.limit }) });
      read.push({ entry: { file, readPath: file }, bytes, digest: '', vouched: undefined });
    } catch (error) {
      read.push({ entry: { file, readPath: file }, error });
    }
  }
  const { good, problems } = await parseAll(read, options);
  const where = `the ${files.length} desired-state files`;
  if (problems.length > 0) throw partsError(where, problems);
  const combined = combineParts(good);
  if (!combined.ok) throw partsError(where, combined.problems);
  return combined.file;
}

/** A part as the last check saw it, when it is not the one in force. */
interface SeenPart {
  readonly digest: string;
  /** The parsed part, or why it cannot be used. */
  readonly part?: GoodPart;
  readonly problem?: string;
}

/**
 * The parts of a folder as the agent follows them: the content in force of each part
 * and its digest; {@link DesiredParts.check} parses only the parts whose bytes changed.
 */
export class DesiredParts {
  /** The parts in force, by file; always a consistent whole. */
  private inForce: Map<string, GoodPart>;
  /** The last bytes seen of each part that is not in force as it is on disk. */
  private seen = new Map<string, SeenPart>();
  /** Per part, the stamp its last read vouches for and that read's digest: a part with that stamp is not read again. */
  private vouched = new Map<string, { readonly stamp: FileStamp; readonly digest: string }>();
  private combined: DesiredFile;

  private constructor(
    readonly dir: string,
    private readonly options: DesiredPartsOptions,
    parts: readonly GoodPart[],
    combined: DesiredFile,
  ) {
    this.inForce = new Map(parts.map((p) => [p.file, p]));
    this.combined = combined;
  }

  /**
   * Reads every part; all of them must be good and consistent.
   *
   * @throws IpsetsError `INVALID_INPUT` naming every bad part or conflict, or a folder without parts.
   */
  static async open(dir: string, options: DesiredPartsOptions = {}): Promise<DesiredParts> {
    let read;
    try {
      read = await readFolder(dir, options);
    } catch (error) {
      throw new IpsetsError('INVALID_INPUT', cannotList(dir, error), { cause: error, details: { source: dir, problems: [] } });
    }
    if (read.length === 0) throw new IpsetsError('INVALID_INPUT', noParts(dir), { details: { source: dir, problems: [] } });
    const { good, problems } = await parseAll(read, options);
    if (problems.length > 0) throw partsError(dir, problems);
    const combined = combineParts(good);
    if (!combined.ok) throw partsError(dir, combined.problems);
    const parts = new DesiredParts(dir, options, good, combined.file);
    for (const got of read) if (!('error' in got) && got.vouched !== undefined) parts.vouched.set(got.entry.file, { stamp: got.vouched, digest: got.digest });
    return parts;
  }

  /** The desired file in force: every part's last good content, combined. */
  get file(): DesiredFile {
    return this.combined;
  }

  /** The parts in force. */
  get files(): readonly string[] {
    return [...this.inForce.keys()];
  }

  /**
   * Reads the folder again: parts whose bytes changed are parsed, and each change
   * (a new, changed or removed part) is taken in when the parts stay consistent with it.
   */
  async check(): Promise<PartsCheck> {
    let read;
    try {
      read = await readFolder(this.dir, this.options, (entry, stamp) => {
        const last = this.vouched.get(entry.file);
        if (last === undefined || !sameStamp(stamp, last.stamp)) return undefined;
        // Only a digest whose part is at hand: its bytes are never needed.
        return this.inForce.get(entry.file)?.digest === last.digest || this.seen.get(entry.file)?.digest === last.digest ? last.digest : undefined;
      });
    } catch (error) {
      return { changed: false, reread: [], problems: [], missing: cannotList(this.dir, error) };
    }
    if (read.length === 0) return { changed: false, reread: [], problems: [], missing: noParts(this.dir) };
    const reread: string[] = [];
    const problems: PartProblem[] = [];
    /** Parts whose content on disk differs from the one in force: the new content, or undefined for a removed part. */
    const changes = new Map<string, GoodPart | undefined>();
    const present = new Set<string>();
    const seen = new Map<string, SeenPart>();
    for (const got of read) {
      const { entry } = got;
      present.add(entry.file);
      if ('error' in got) {
        this.vouched.delete(entry.file);
        // Unreadable (not a regular file, too large, gone): the content in force stays.
        const message = messageOfError(got.error);
        seen.set(entry.file, { digest: `unreadable\0${message}`, problem: message });
        problems.push({ file: entry.file, message });
        continue;
      }
      const { digest } = got;
      if (got.vouched === undefined) this.vouched.delete(entry.file);
      else this.vouched.set(entry.file, { stamp: got.vouched, digest });
      if (this.inForce.get(entry.file)?.digest === digest) continue;
      let known = this.seen.get(entry.file);
      if (known?.digest !== digest) {
        reread.push(entry.file);
        try {
          known = { digest, part: { ...(await parsePart(entry, bytesOf(got), this.options)), digest } };
        } catch (error) {
          known = { digest, problem: messageOfError(error) };
        }
      }
      seen.set(entry.file, known);
      if (known.part !== undefined) changes.set(entry.file, known.part);
      else problems.push({ file: entry.file, message: known.problem! });
    }
    for (const file of this.inForce.keys()) if (!present.has(file)) changes.set(file, undefined);
    for (const file of [...this.vouched.keys()]) if (!present.has(file)) this.vouched.delete(file);

    // Take the changes in one at a time while the whole stays consistent; a change that
    // needs another (a set moved from one part to another) gets in on a later pass.
    let accepted = this.inForce;
    let combined: DesiredFile | undefined;
    const refused = new Map<string, string>();
    for (let progress = true; progress && changes.size > 0; ) {
      progress = false;
      for (const [file, part] of [...changes]) {
        const trial = new Map(accepted);
        if (part === undefined) trial.delete(file);
        else trial.set(file, part);
        const result = combineParts([...trial.keys()].sort().map((f) => trial.get(f)!));
        if (result.ok) {
          accepted = trial;
          combined = result.file;
          changes.delete(file);
          refused.delete(file);
          progress = true;
        } else {
          refused.set(file, result.problems.map((p) => p.message).join('\n'));
        }
      }
    }
    for (const [file, message] of refused) {
      problems.push({ file, message: present.has(file) ? message : `${quote(file)} was removed, but the other parts need it: ${message}` });
    }
    // Keep only what is still on disk and not in force (a part that got in needs no entry).
    for (const file of [...seen.keys()]) if (accepted.get(file)?.digest === seen.get(file)!.digest) seen.delete(file);
    this.seen = seen;
    problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    if (combined === undefined || accepted === this.inForce) return { changed: false, reread, problems };
    this.inForce = accepted;
    this.combined = combined;
    return { changed: true, reread, problems };
  }
}
