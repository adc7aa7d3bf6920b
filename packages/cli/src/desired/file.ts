/**
 * The desired-state file: JSON or YAML that declares sets by NPM type and
 * unprefixed name, with their members. Validated with zod; every problem names the
 * path of the bad value (and its line when the text is at hand), quotes it and
 * says what was expected. A file with any problem yields nothing: callers never
 * apply half a file.
 *
 * Members are checked with core's `SetMembers.check`, so the command and
 * the library accept exactly the same members.
 */
import { extname } from 'node:path';
import { readInputTextOrThrow } from '../bounded-read.js';
import { LOCATED_PROBLEMS, ROOT_EXPECTED, desiredFileError } from './problems.js';
import { parseJson } from './json.js';
import { validateDesiredDocument } from './validate.js';
import type { DesiredFile, ExternalSetRef, ValidateDesiredOptions } from './validate.js';
import { parseYaml } from './yaml.js';

export { formatProblem } from './problems.js';
export type { FileProblem } from './problems.js';
export { validateDesiredDocument } from './validate.js';
export type { DesiredFile, DesiredFileSet, ExternalSetRef, ValidateDesiredOptions } from './validate.js';
export { desiredStateOf } from './state.js';

/** Options of {@link parseDesiredText}. */
export interface ParseDesiredOptions extends ValidateDesiredOptions {
  /** `json` or `yaml`; by default JSON when the text starts with `{` or `[`, else YAML (YAML reads JSON too). */
  readonly format?: 'json' | 'yaml';
  /** File name for messages. */
  readonly source?: string;
}


function isBlankCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Parses and validates a desired-state text.
 *
 * @throws IpsetsError `INVALID_INPUT` listing every problem (with lines), when any value is bad.
 */
export function parseDesiredText(text: string, options: ParseDesiredOptions = {}): DesiredFile {
  return parseDesiredTextWithRefs(text, options).file;
}

/**
 * {@link parseDesiredText} that also returns, with their lines, the list member sets
 * the text does not declare (with `externalSets`: one part of a desired state made of parts).
 *
 * @throws IpsetsError `INVALID_INPUT` listing every problem (with lines), when any value is bad.
 */
export function parseDesiredTextWithRefs(text: string, options: ParseDesiredOptions & { readonly externalSets?: boolean } = {}): { file: DesiredFile; external: readonly ExternalSetRef[] } {
  const source = options.source ?? '(desired state)';
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let first = 0;
  while (first < body.length && isBlankCode(body.charCodeAt(first))) first++;
  if (first === body.length) {
    throw desiredFileError(source, [{ path: '(root)', message: `the file is empty; expected ${ROOT_EXPECTED}` }]);
  }
  const c0 = body.charCodeAt(first);
  const format = options.format ?? (c0 === 123 /* { */ || c0 === 91 /* [ */ ? 'json' : 'yaml');
  const { doc, locate } = format === 'json' ? parseJson(body, source) : parseYaml(body, source);
  if (doc === undefined) {
    throw desiredFileError(source, [{ path: '(root)', message: `the file holds no document (only comments or directives); expected ${ROOT_EXPECTED}` }]);
  }
  if (doc === null) throw desiredFileError(source, [{ path: '(root)', message: `got null; expected ${ROOT_EXPECTED}` }]);
  const result = validateDesiredDocument(doc, {
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.ownerSource === undefined ? {} : { ownerSource: options.ownerSource }),
    ...(options.externalSets === true ? { externalSets: true } : {}),
  });
  if (!result.ok) {
    // In file order, so a reader fixes them top to bottom (validation runs in passes).
    const located = locate(result.problems).map((p, i) => ({ p, i }));
    located.sort((a, b) => (a.p.line ?? Infinity) - (b.p.line ?? Infinity) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i);
    throw desiredFileError(source, located.map((x) => x.p), result.total, result.more === true);
  }
  if (result.external === undefined) return { file: result.file, external: [] };
  // Located like problems: a reference that no other part declares is reported with its line.
  const external = result.external;
  const located = locate(external.slice(0, LOCATED_PROBLEMS).map((ref) => ({ path: ref.path, message: '' })));
  return { file: result.file, external: external.map((ref, i) => ({ ...ref, ...(located[i]?.line === undefined ? {} : { line: located[i]!.line, column: located[i]!.column ?? 1 }) })) };
}

/** Options of {@link loadDesiredFile}. */
export interface LoadDesiredOptions extends ValidateDesiredOptions {
  /** Where `-` reads from (default process.stdin). */
  readonly stdin?: AsyncIterable<string | Buffer>;
  /** Largest file accepted, in bytes (default 256 MiB). */
  readonly limit?: number;
}

/**
 * Reads and validates a desired-state file (`.json`, `.yaml` or `.yml`; other names
 * are sniffed; `-` reads standard input). Only a regular file of at most 256 MiB of
 * UTF-8 is read.
 *
 * @throws IpsetsError `INVALID_INPUT` when the file cannot be read or any value is bad.
 */
export async function loadDesiredFile(path: string, options: LoadDesiredOptions = {}): Promise<DesiredFile> {
  const what = 'desired-state file';
  const text = await readInputTextOrThrow(path, {
    what,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
  const source = path === '-' ? 'stdin' : path;
  const ext = path === '-' ? '' : extname(path).toLowerCase();
  const format = ext === '.json' ? 'json' : ext === '.yaml' || ext === '.yml' ? 'yaml' : undefined;
  return parseDesiredText(text, {
    source,
    ...(format === undefined ? {} : { format }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.ownerSource === undefined ? {} : { ownerSource: options.ownerSource }),
  });
}

