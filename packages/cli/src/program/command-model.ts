/**
 * The command line as data, read off commander's own definitions: every command with
 * its arguments and options (flags, whether they take a value, its choices). Shell
 * completion and the man page are written from this, so they list exactly what the
 * program accepts and cannot drift from it.
 */
import type { Command } from 'commander';

/** One option of a command. */
export interface OptionModel {
  /** `--kernel`. */
  readonly long: string;
  /** `-V`, when it has one. */
  readonly short?: string;
  /** The value's name (`kind` for `--kernel <kind>`), when the option takes one. */
  readonly value?: string;
  /** The values the option accepts, when commander knows them. */
  readonly choices?: readonly string[];
  /** The value is a file or folder (completed with file names). */
  readonly path: boolean;
  readonly description: string;
  /** The default as the help shows it (`"60s"`), when there is one. */
  readonly defaultText?: string;
}

/** One positional argument. */
export interface ArgumentModel {
  readonly name: string;
  readonly required: boolean;
  readonly choices?: readonly string[];
  /** A file (completed with file names). */
  readonly path: boolean;
  readonly description: string;
}

/** One command (or the program itself, for its global options). */
export interface CommandModel {
  readonly name: string;
  readonly description: string;
  readonly arguments: readonly ArgumentModel[];
  readonly options: readonly OptionModel[];
}

/** The program: its own (global) options and its commands, in definition order. */
export interface ProgramModel {
  readonly name: string;
  readonly description: string;
  readonly globalOptions: readonly OptionModel[];
  readonly commands: readonly CommandModel[];
}

const PATH_VALUE = /file|path|dir/i;

/** Every command's `--help` (commander adds it outside the option list). */
const HELP_OPTION: OptionModel = { long: '--help', short: '-h', path: false, description: 'show help' };

function optionsOf(cmd: Command): OptionModel[] {
  const out: OptionModel[] = [];
  for (const option of cmd.options) {
    if (option.hidden || option.long === undefined) continue;
    const value = /<([^>]+)>|\[([^\]]+)\]/.exec(option.flags);
    const name = value?.[1] ?? value?.[2];
    const choices = option.argChoices;
    const shown = option.defaultValueDescription ?? (option.defaultValue === undefined || typeof option.defaultValue === 'boolean' ? undefined : JSON.stringify(option.defaultValue));
    out.push({
      long: option.long,
      ...(option.short === undefined ? {} : { short: option.short }),
      ...(name === undefined ? {} : { value: name }),
      ...(choices === undefined ? {} : { choices: [...choices] }),
      path: name !== undefined && PATH_VALUE.test(name),
      description: option.description,
      ...(shown === undefined ? {} : { defaultText: shown }),
    });
  }
  return [...out, HELP_OPTION];
}

/** Reads the program's definitions (see the module comment). */
export function programModel(program: Command): ProgramModel {
  return {
    name: program.name(),
    description: program.description(),
    globalOptions: optionsOf(program),
    commands: program.commands.map((cmd) => ({
      name: cmd.name(),
      description: cmd.description(),
      arguments: cmd.registeredArguments.map((arg) => ({
        name: arg.name(),
        required: arg.required,
        ...(arg.argChoices === undefined ? {} : { choices: [...arg.argChoices] }),
        path: arg.argChoices === undefined && PATH_VALUE.test(arg.name()),
        description: arg.description,
      })),
      options: optionsOf(cmd),
    })),
  };
}
