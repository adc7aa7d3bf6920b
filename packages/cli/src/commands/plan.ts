/**
 * `ipsets plan FILE [--save SAVE_FILE] [--json]`: the restore text that would run,
 * against an empty kernel or against a captured `ipset save`. Touches no kernel.
 */
import { resolve } from 'node:path';
import { IpsetsError, canonicalMemberForType, parseSave, planReconcile, validateSetName } from '@ipsets/core';
import type { AddressFamily, SaveSnapshot, SetType } from '@ipsets/core';
import { readInputTextOrThrow } from '../bounded-read.js';
import { EXIT } from '../cli-io.js';
import { DEFAULT_CLI_OWNER } from '../defaults.js';
import type { CliIo } from '../cli-io.js';
import { desiredStateOf } from '../desired/file.js';
import { loadDesiredInput } from '../desired/input.js';
import { cutText, formatCount, quoteCut } from '../format.js';
import { planJsonChunks } from '../output/plan-json.js';
import { formatNotes, formatPlanCounts, restoreTextChunks } from '../output/plan-text.js';
import { writeChunks } from '../output/write-chunks.js';

/** Options of {@link planCommand}. */
export interface PlanCommandOptions {
  /** A captured `ipset save` to plan against (`-` reads stdin). */
  save?: string;
  /** Print the plan as JSON (lines with sections and error handlers, notes). */
  json?: boolean;
  /** Where `--save -` reads from (default process.stdin). */
  stdin?: AsyncIterable<string | Buffer>;
  /** The owner prefix when FILE names none (`--owner`). */
  owner?: string;
}

/** Problems of a captured save listed in full; the rest are counted. */
const SHOWN_SAVE_PROBLEMS = 20;

/** Counting stops here: a 100 MB save of bad members is refused in seconds, not minutes. */
const COUNTED_SAVE_PROBLEMS = 10_000;

/** What the members of an owned set of each kernel type must be (canonical as ipset prints them). */
const MEMBER_TYPE: Record<string, SetType | undefined> = {
  'hash:net': 'cidrBlocks',
  'hash:ip,port': 'namedPorts',
  'list:set': 'nestedLabelOfPod',
};

/** The family of a saved set from its create options (`family inet6 hashsize …`); ipset prints `family inet` for IPv4 sets. */
function savedFamily(options: string): AddressFamily {
  return /(?:^|\s)family\s+inet6(?:\s|$)/.test(options) ? 'inet6' : 'inet';
}

/**
 * What makes a captured save unfit to plan against: lines the parser could not use
 * (a real `ipset save` has none: the file is cut, edited or not a save), and, in sets
 * the plan may touch (names starting with `owner`), a name or member that is not what
 * ipset itself prints for the set's type and family — such a value would be echoed into `-D`/`-F` lines.
 * At most {@link SHOWN_SAVE_PROBLEMS} are described; all are counted.
 */
export function saveSnapshotProblems(snapshot: SaveSnapshot, owner: string): { problems: string[]; total: number; more: boolean } {
  const problems: string[] = [];
  let total = 0;
  const add = (describe: () => string) => {
    total++;
    if (problems.length < SHOWN_SAVE_PROBLEMS) problems.push(describe());
  };
  for (const p of snapshot.problems) add(() => `line ${p.line}: ${cutText(p.reason, 200)}: ${quoteCut(p.text)}`);
  for (const set of snapshot.sets) {
    if (total >= COUNTED_SAVE_PROBLEMS) break;
    // Prefix, not the ownership rule: any set the plan could ever touch is checked (stricter is safe here).
    if (!set.name.startsWith(owner)) continue;
    try {
      validateSetName(set.name);
    } catch {
      add(() => `set ${quoteCut(set.name)}: not a valid set name; expected 1-31 printable ASCII characters as ipset prints them`);
      continue;
    }
    const type = MEMBER_TYPE[set.type];
    if (type === undefined) continue;
    const family = savedFamily(set.options);
    for (const member of set.members) {
      if (total >= COUNTED_SAVE_PROBLEMS) break;
      let canonical: string | undefined;
      try {
        canonical = member.length > 64 ? undefined : canonicalMemberForType(type, member, family);
      } catch {
        canonical = undefined;
      }
      if (canonical === member) continue;
      add(() =>
        canonical === undefined
          ? `set ${quoteCut(set.name)} (${set.type}): member ${quoteCut(member)} is not a valid ${set.type} member; expected members as ipset save prints them`
          : `set ${quoteCut(set.name)} (${set.type}): member ${quoteCut(member)} is not in the form ipset prints (that is ${quoteCut(canonical)}); expected members as ipset save prints them`,
      );
    }
  }
  return { problems, total, more: total >= COUNTED_SAVE_PROBLEMS };
}

/**
 * Reads a captured `ipset save` text (a regular file of at most 256 MiB, or stdin) and
 * parses it. A save with any problem (see {@link saveSnapshotProblems}) is refused:
 * planning against it would echo what ipset never printed.
 *
 * @throws IpsetsError `INVALID_INPUT` when the file cannot be read or has problems.
 */
export async function readSaveSnapshot(
  path: string,
  io: CliIo,
  stdin?: AsyncIterable<string | Buffer>,
  owner: string = DEFAULT_CLI_OWNER,
): Promise<SaveSnapshot> {
  const what = 'save file';
  const text = await readInputTextOrThrow(path === '-' ? '-' : resolve(io.cwd, path), { what, ...(stdin === undefined ? {} : { stdin }) });
  const source = path === '-' ? 'stdin' : path;
  const snapshot = parseSave(text);
  const { problems, total, more } = saveSnapshotProblems(snapshot, owner);
  if (total === 0) return snapshot;
  const name = cutText(source, 300);
  const message =
    total === 1
      ? `${name}: 1 problem; nothing was planned: ${problems[0]!} (expected the unedited output of ipset save)`
      : `${name}: ${more ? 'at least ' : ''}${formatCount(total)} problems; nothing was planned (expected the unedited output of ipset save):\n${problems.map((p) => `  ${p}`).join('\n')}${
          total > problems.length ? `\n  … and ${more ? 'at least ' : ''}${formatCount(total - problems.length)} more` : ''
        }`;
  throw new IpsetsError('INVALID_INPUT', message, { details: { source, total } });
}

/** Runs `ipsets plan`; returns the exit code. */
export async function planCommand(file: string | readonly string[], options: PlanCommandOptions, io: CliIo): Promise<number> {
  if (file === '-' && options.save === '-') {
    throw new IpsetsError('INVALID_ARGUMENT', 'FILE and --save cannot both be "-" (stdin); give one of them as a file');
  }
  const desiredFile = await loadDesiredInput(file, io, options.stdin, options.owner);
  const desired = desiredStateOf(desiredFile);
  const snapshot: SaveSnapshot =
    options.save === undefined ? { sets: [], problems: [] } : await readSaveSnapshot(options.save, io, options.stdin, desiredFile.owner);
  // A captured save has no reference counts; the plan's destroy handlers cover sets still in use.
  const plan = planReconcile(desired, snapshot, []);
  // Written in pieces: the document of a plan of millions of lines is longer than a string can be.
  if (options.json === true) {
    await writeChunks(io.stdout, planJsonChunks(plan));
    return EXIT.ok;
  }
  await writeChunks(io.stdout, restoreTextChunks(plan));
  const against = options.save === undefined ? 'an empty kernel' : `${options.save === '-' ? 'stdin' : options.save} (${snapshot.sets.length} sets)`;
  io.stderr.write(`ipsets: plan against ${against}: ${formatPlanCounts(plan)}\n`);
  for (const line of formatNotes(plan.notes ?? [])) io.stderr.write(`${line}\n`);
  return EXIT.ok;
}
