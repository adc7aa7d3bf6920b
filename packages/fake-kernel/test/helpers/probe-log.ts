/**
 * Reads the restore cases of `ipset-probe.log` (the raw evidence behind
 * docs/ipset-semantics.md, copied to test/fixtures) so the fake kernel can replay them.
 */
import { readFileSync } from 'node:fs';

/** One `### title` case that ran `ipset restore` on an input. */
export interface ProbeCase {
  title: string;
  pre: string[];
  exist: boolean;
  input: string[];
  stdout: string[];
  stderr: string[];
  rc: number;
  /** `save after:` lines (undefined when the log shows something else). */
  save?: string[];
}

const NO_FINAL_NEWLINE = new Set(['COMMIT as last line without newline', 'last line without trailing newline']);

/** Input text of a case (lines joined with `\n`, `<CR>` restored). */
export function inputText(c: ProbeCase): string {
  if (c.input.length === 1 && c.input[0] === '<empty>') return '';
  const body = c.input.map((l) => l.replace(/<CR>$/, '\r')).join('\n');
  return NO_FINAL_NEWLINE.has(c.title) ? body : `${body}\n`;
}

/** Parses the log. */
export function readProbeCases(path: string): ProbeCase[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const cases: ProbeCase[] = [];
  let cur: ProbeCase | undefined;
  let section: 'pre' | 'input' | 'stdout' | 'stderr' | 'save' | 'other' = 'other';
  for (const line of lines) {
    if (line.startsWith('### ')) {
      cur = { title: line.slice(4), pre: [], exist: false, input: [], stdout: [], stderr: [], rc: -1 };
      cases.push(cur);
      section = 'other';
      continue;
    }
    if (cur === undefined) continue;
    if (line === 'pre-state:') section = 'pre';
    else if (line.startsWith('input (ipset')) {
      section = 'input';
      cur.exist = line.includes('-exist');
    } else if (line === 'stdout:') section = 'stdout';
    else if (line === 'stderr:') section = 'stderr';
    else if (line.startsWith('rc=')) {
      cur.rc = Number(line.slice(3));
      section = 'other';
    } else if (line === 'save after:') {
      section = 'save';
      cur.save = [];
    } else if (section === 'save' && line.startsWith('  | Name: ')) {
      section = 'other';
    } else if (line.startsWith('  | ') || line === '  |') {
      const text = line.slice(4);
      if (section === 'pre') cur.pre.push(text);
      else if (section === 'input') cur.input.push(text.replace(/^ *\d+: /, ''));
      else if (section === 'stdout') cur.stdout.push(text);
      else if (section === 'stderr') cur.stderr.push(text);
      else if (section === 'save') cur.save?.push(text);
    } else if (line.trim() !== '' && section !== 'other') {
      section = 'other';
    }
  }
  return cases.filter((c) => c.input.length > 0 || c.title === 'empty input' );
}
