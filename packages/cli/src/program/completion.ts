/**
 * `ipsets completion bash|zsh|fish`: a completion script for each shell, written from
 * the program's own definitions (`command-model.ts`): the commands, each command's
 * flags, the values of flags that have choices (`--kernel fake|linux`), and file names
 * where a command or a flag takes a file.
 */
import type { Command } from 'commander';
import { programModel } from './command-model.js';
import type { CommandModel, OptionModel, ProgramModel } from './command-model.js';

/** The shells `ipsets completion` writes for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

/** One of {@link COMPLETION_SHELLS}. */
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The completion script of `shell` for `program`. */
export function completionScript(program: Command, shell: CompletionShell): string {
  const model = programModel(program);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}

/** Single-quoted for a POSIX shell (and fish, whose single quotes only escape `\` and `'`). */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function flagsOf(option: OptionModel): string[] {
  return option.short === undefined ? [option.long] : [option.short, option.long];
}

function bashScript(model: ProgramModel): string {
  const fn = `_${model.name}_complete`;
  const verbs = model.commands.map((c) => c.name);
  const globals = model.globalOptions.flatMap(flagsOf);
  const valueCases = (options: readonly OptionModel[]) =>
    options
      .filter((o) => o.value !== undefined)
      .map((o) => {
        const reply = o.choices !== undefined ? `COMPREPLY=($(compgen -W ${sq(o.choices.join(' '))} -- "$cur"))` : o.path ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=()';
        return `        ${flagsOf(o).join('|')}) ${reply}; return ;;`;
      });
  const commandCase = (c: CommandModel) => {
    const flags = [...c.options.flatMap(flagsOf), ...globals.filter((g) => g !== '-h' && g !== '--help' && g !== '-V' && g !== '--version')];
    const arg = c.arguments[0];
    const positional =
      arg === undefined ? 'COMPREPLY=()' : arg.choices !== undefined ? `COMPREPLY=($(compgen -W ${sq(arg.choices.join(' '))} -- "$cur"))` : arg.path ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=()';
    return [
      `    ${c.name})`,
      '      case "$prev" in',
      ...valueCases(c.options),
      '      esac',
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${sq(flags.join(' '))} -- "$cur")); else ${positional}; fi`,
      '      ;;',
    ].join('\n');
  };
  return `# bash completion for ${model.name} (written by \`${model.name} completion bash\` from its own command definitions)
# Use: source <(${model.name} completion bash), or save it as /usr/share/bash-completion/completions/${model.name}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "$cmd" in
    "")
      COMPREPLY=($(compgen -W ${sq([...verbs, ...globals].join(' '))} -- "$cur"))
      ;;
${model.commands.map(commandCase).join('\n')}
    *) COMPREPLY=() ;;
  esac
}
complete -o filenames -o bashdefault -F ${fn} ${model.name}
`;
}

/** Text inside a zsh `_arguments` spec or `_describe` item: `[`, `]`, `:` and `\` escaped. */
function zshText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/([[\]:])/g, '\\$1');
}

function zshOptionSpecs(options: readonly OptionModel[]): string[] {
  return options.map((o) => {
    const description = `[${zshText(o.description)}]`;
    const value = o.value === undefined ? '' : `:${zshText(o.value)}:${o.choices !== undefined ? `(${o.choices.join(' ')})` : o.path ? '_files' : ' '}`;
    const names = o.short === undefined ? o.long : `{${o.short},${o.long}}`;
    return o.short === undefined ? sq(`${names}${description}${value}`) : `${`'(${o.short} ${o.long})'`}${names}${sq(`${description}${value}`)}`;
  });
}

function zshScript(model: ProgramModel): string {
  const fn = `_${model.name}`;
  const describe = model.commands.map((c) => `    ${sq(`${c.name}:${zshText(c.description)}`)}`).join('\n');
  const commonGlobals = model.globalOptions.filter((o) => o.long === '--debug');
  const commandCase = (c: CommandModel) => {
    const args = c.arguments.map((a, i) => sq(`${i + 1}:${zshText(a.name)}:${a.choices !== undefined ? `(${a.choices.join(' ')})` : a.path ? '_files' : ' '}`));
    return `    ${c.name})\n      _arguments -s ${[...zshOptionSpecs([...c.options, ...commonGlobals]), ...args].join(' \\\n        ')} ;;`;
  };
  return `#compdef ${model.name}
# zsh completion for ${model.name} (written by \`${model.name} completion zsh\` from its own command definitions)
# Use: source <(${model.name} completion zsh) after compinit, or save it as _${model.name} in a folder of $fpath
${fn}() {
  local -a commands
  commands=(
${describe}
  )
  local line state
  _arguments -C ${zshOptionSpecs(model.globalOptions).join(' ')} '1: :->command' '*:: :->args'
  case $state in
    command) _describe -t commands 'ipsets command' commands ;;
    args)
      case $line[1] in
${model.commands.map(commandCase).join('\n')}
      esac
      ;;
  esac
}
if [[ "\${funcstack[1]}" == "${fn}" ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${model.name}
fi
`;
}

function fishScript(model: ProgramModel): string {
  const optionLine = (condition: string, o: OptionModel) =>
    [
      `complete -c ${model.name} -n ${sq(condition)}`,
      `-l ${o.long.replace(/^--/, '')}`,
      ...(o.short === undefined ? [] : [`-s ${o.short.replace(/^-/, '')}`]),
      ...(o.value === undefined ? [] : o.choices !== undefined ? [`-x -a ${sq(o.choices.join(' '))}`] : o.path ? ['-r -F'] : ['-x']),
      `-d ${sq(o.description)}`,
    ].join(' ');
  const lines = [
    `# fish completion for ${model.name} (written by \`${model.name} completion fish\` from its own command definitions)`,
    `# Use: ${model.name} completion fish | source, or save it as ~/.config/fish/completions/${model.name}.fish`,
    `complete -c ${model.name} -f`,
    ...model.globalOptions.map((o) => optionLine('__fish_use_subcommand', o)),
    ...model.commands.map((c) => `complete -c ${model.name} -n '__fish_use_subcommand' -a ${sq(c.name)} -d ${sq(c.description)}`),
  ];
  for (const c of model.commands) {
    const condition = `__fish_seen_subcommand_from ${c.name}`;
    for (const o of c.options) lines.push(optionLine(condition, o));
    const arg = c.arguments[0];
    if (arg?.choices !== undefined) lines.push(`complete -c ${model.name} -n ${sq(`${condition}; and not __fish_seen_subcommand_from ${arg.choices.join(' ')}`)} -a ${sq(arg.choices.join(' '))}`);
    else if (arg?.path === true) lines.push(`complete -c ${model.name} -n ${sq(condition)} -F`);
  }
  return lines.join('\n') + '\n';
}
