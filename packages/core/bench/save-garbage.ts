/**
 * parseSave on a 100 MB garbage save (hostile input): time and memory. Run it under
 * `/usr/bin/time -v` for the peak RSS of the whole process.
 *
 *   node --import tsx bench/save-garbage.ts [lines|oneline]
 */
import { parseSave } from '../src/parse/save-parser.js';

const MB = 100;
const kind = process.argv[2] ?? 'lines';
const parse = parseSave;
let text: string;
if (kind === 'oneline') {
  text = 'x'.repeat(MB * 1024 * 1024);
} else {
  // Lines of 50 printable characters that are no command, with a few tabs and blanks.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-#"\t ./:,';
  let seed = 12345;
  const line = (): string => {
    let s = '';
    for (let i = 0; i < 49; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      s += alphabet[seed % alphabet.length];
    }
    return 'q' + s;
  };
  const lines: string[] = [];
  for (let i = 0; i < 4096; i++) lines.push(line());
  const block = lines.join('\n') + '\n';
  text = block.repeat(Math.ceil((MB * 1024 * 1024) / block.length));
}
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const snapshot = parse(text);
const ms = performance.now() - t0;
const rss = process.memoryUsage().rss;
console.log(
  `parseSave ${kind}: ${(text.length / 1048576).toFixed(0)} MB in ${ms.toFixed(0)} ms; problems kept ${snapshot.problems.length}, counted ${snapshot.problemCount ?? snapshot.problems.length}; rss ${(rssBefore / 1048576).toFixed(0)} -> ${(rss / 1048576).toFixed(0)} MB`,
);
