/**
 * The JSON form of a desired file: one linear scan for what `JSON.parse` resolves
 * silently (duplicate keys) or should not accept (deep nesting), then `JSON.parse`, and line
 * numbers for problems found later, by scanning the text again, never by a second parser.
 */
import { cutText, quoteCut as quote } from '../format.js';
import { LOCATED_PROBLEMS, ROOT_EXPECTED, desiredFileError, formatPath, messageOf, pathKeys } from './problems.js';
import type { Locator } from './problems.js';
import { MAX_JSON_DEPTH, lineColumns, locateJsonPaths, scanJsonStructure } from '../json-scan.js';


function jsonLocator(text: string): Locator {
  return (problems) => {
    const located = problems.slice(0, LOCATED_PROBLEMS);
    const wanted: (string | number)[][] = [];
    const chains = located.map((p) => {
      if (p.path === '(root)') return [];
      const keys = pathKeys(p.path);
      const chain: string[] = [];
      for (let n = keys.length; n > 0; n--) {
        wanted.push(keys.slice(0, n));
        chain.push(formatPath(keys.slice(0, n)));
      }
      return chain;
    });
    // One scan for all of them, one more for the line numbers: never a second parser.
    const offsets = locateJsonPaths(text, wanted);
    const positions = lineColumns(text, [...offsets.values()]);
    const out = located.map((p, i) => {
      for (const id of chains[i]!) {
        const offset = offsets.get(id);
        if (offset === undefined) continue;
        const pos = positions.get(offset)!;
        return { ...p, line: pos.line, column: pos.column };
      }
      return p;
    });
    return [...out, ...problems.slice(LOCATED_PROBLEMS)];
  };
}


/** Parses a JSON text to data, refusing duplicate keys and deep nesting (each problem with its path). */
export function parseJson(text: string, source: string): { doc: unknown; locate: Locator } {
  // One scan, before JSON.parse builds anything: the depth (refused first, valid JSON or
  // not) and the duplicate keys JSON.parse would resolve silently (reported once the text
  // is known to be JSON).
  const structure = scanJsonStructure(text, MAX_JSON_DEPTH, LOCATED_PROBLEMS);
  const deep = structure.find((p) => p.kind === 'too-deep');
  if (deep !== undefined) {
    const pos = lineColumns(text, [deep.offset]).get(deep.offset)!;
    throw desiredFileError(source, [
      { path: '(root)', line: pos.line, column: pos.column, message: `the document nests more than ${MAX_JSON_DEPTH} levels deep; expected ${ROOT_EXPECTED}` },
    ]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const message = messageOf(error);
    const at = /at position (\d+)/.exec(message);
    const pos = at === null ? undefined : lineColumns(text, [Number(at[1])]).get(Number(at[1]));
    throw desiredFileError(source, [
      { path: '(root)', ...(pos === undefined ? {} : { line: pos.line, column: pos.column }), message: `not valid JSON: ${cutText(message, 200)}; expected a valid JSON document` },
    ]);
  }
  // JSON.parse keeps the last of duplicate keys without a word: the scan above found them.
  if (structure.length > 0) {
    const positions = lineColumns(text, structure.flatMap((p) => (p.firstOffset === undefined ? [p.offset] : [p.offset, p.firstOffset])));
    throw desiredFileError(
      source,
      structure.map((p) => {
        const pos = positions.get(p.offset)!;
        const first = p.firstOffset === undefined ? undefined : positions.get(p.firstOffset);
        return {
          path: p.path,
          line: pos.line,
          column: pos.column,
          message: `duplicate key ${quote(p.key)}${first === undefined ? '' : ` (first at line ${first.line}:${first.column})`}; expected each key once (the last one would silently win)`,
        };
      }),
    );
  }
  return { doc, locate: jsonLocator(text) };
}
