/**
 * `ipsets man`: the manual page, in roff (`man -l -` renders it), written from the
 * program's own definitions (`command-model.ts`) and the long help texts, so every
 * command and flag the program accepts is in it with its help text and default.
 */
import type { Command } from 'commander';
import { programModel } from './command-model.js';
import type { OptionModel } from './command-model.js';
import { AGENT_HELP, EXIT_CODES_HELP, FILE_HELP, KERNEL_HELP } from './help.js';

/** Options of {@link manPage}. */
export interface ManPageOptions {
  /** The version in the page's footer. */
  version: string;
  /** The date in the footer (default: none; a page built twice is the same bytes). */
  date?: string;
}

/** Text for roff: backslashes and leading dots or quotes escaped. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/** A block shown as written (no filling), for the help texts' tables and examples. */
function verbatim(text: string): string {
  return `.nf\n${roff(text.replace(/^\n+|\n+$/g, ''))}\n.fi`;
}

function optionItem(o: OptionModel): string {
  const names = [o.short, o.long].filter((n): n is string => n !== undefined).map((n) => `\\fB${roff(n)}\\fR`).join(', ');
  const value = o.value === undefined ? '' : ` \\fI${roff(o.value)}\\fR`;
  const description = o.choices === undefined ? o.description : `${o.description} (${o.choices.join(', ')})`;
  const shown = o.defaultText === undefined ? '' : ` (default: ${o.defaultText})`;
  return `.TP\n${names}${value}\n${roff(description + shown)}`;
}

/** The man page of `program` (section 1). */
export function manPage(program: Command, options: ManPageOptions): string {
  const model = programModel(program);
  const name = model.name;
  const upper = name.toUpperCase();
  const lines: string[] = [
    `.TH ${upper} 1 "${options.date ?? ''}" "${name} ${roff(options.version)}" "User Commands"`,
    '.SH NAME',
    `${name} \\- ${roff(model.description.replace(/\.$/, ''))}`,
    '.SH SYNOPSIS',
    ...model.commands.map((c) => {
      const args = c.arguments.map((a) => (a.required ? ` \\fI${roff(a.name.toUpperCase())}\\fR` : ` [\\fI${roff(a.name.toUpperCase())}\\fR]`)).join('');
      return `.B ${name} ${c.name}\n${args.trim() === '' ? '' : `${args.trim()} `}[\\fIoptions\\fR]\n.br`;
    }),
    `.B ${name}\n[\\fB\\-\\-version\\fR [\\fB\\-\\-json\\fR]] [\\fB\\-\\-help\\fR]`,
    '.SH DESCRIPTION',
    roff(model.description),
    '.PP',
    verbatim(KERNEL_HELP),
    '.SH GLOBAL OPTIONS',
    ...model.globalOptions.map(optionItem),
    '.SH COMMANDS',
  ];
  for (const c of model.commands) {
    const args = c.arguments.map((a) => ` ${a.name.toUpperCase()}`).join('');
    lines.push(`.SS ${c.name}${roff(args)}`, roff(c.description));
    for (const a of c.arguments) lines.push(`.TP\n\\fI${roff(a.name.toUpperCase())}\\fR\n${roff(a.description + (a.choices === undefined ? '' : ` (${a.choices.join(', ')})`))}`);
    lines.push(...c.options.map(optionItem));
  }
  lines.push(
    '.SH DESIRED-STATE FILE',
    verbatim(FILE_HELP),
    '.SH AGENT',
    verbatim(AGENT_HELP),
    '.SH EXIT STATUS',
    verbatim(EXIT_CODES_HELP.replace(/^\s*Exit codes:\n/, '')),
    '.SH SEE ALSO',
    '.BR ipset (8),',
    '.BR iptables (8)',
    '',
  );
  return lines.join('\n');
}
