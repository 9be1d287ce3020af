// Shell completion scripts for bash and zsh, made from the command table: command words, each
// command's options, and the values of options and arguments that have a fixed set.
import { type CommandSpec, globalOptions, type OptionSpec } from './command.ts';

interface Node {
  /** The command words so far, space-separated ("" at the top). */
  key: string;
  words: { word: string; description: string }[];
}

/** Every point in the command tree, with what may be typed there. */
function nodes(commands: readonly CommandSpec[], groups: Record<string, string>): Node[] {
  const byKey = new Map<string, Node>();
  const node = (key: string) => {
    let found = byKey.get(key);
    if (!found) {
      found = { key, words: [] };
      byKey.set(key, found);
    }
    return found;
  };
  for (const spec of commands) {
    for (let depth = 0; depth < spec.path.length; depth++) {
      const parent = node(spec.path.slice(0, depth).join(' '));
      const word = spec.path[depth] as string;
      if (!parent.words.some((entry) => entry.word === word)) {
        const description = depth === spec.path.length - 1 ? spec.summary : (groups[word] ?? word);
        parent.words.push({ word, description });
      }
    }
    const leaf = node(spec.path.join(' '));
    for (const option of spec.options ?? [])
      leaf.words.push({ word: `--${option.name}`, description: option.description });
    for (const choice of spec.args?.[0]?.choices ?? []) leaf.words.push({ word: choice, description: choice });
    if (spec.path[0] === 'help') {
      for (const group of new Set(commands.map((command) => command.path[0] as string))) {
        leaf.words.push({ word: group, description: groups[group] ?? group });
      }
    }
  }
  for (const entry of byKey.values()) {
    for (const option of globalOptions) entry.words.push({ word: `--${option.name}`, description: option.description });
  }
  node('').words.push({ word: '--version', description: 'Print the version' });
  return [...byKey.values()];
}

/**
 * Each option that takes a value, as the `case "$cmd|$prev"` pattern that finds it (its command's;
 * any command's for a global one), with its fixed values if it has them: two commands may give one
 * option name different values (deliveries list --status, logs tail --status).
 */
function valueOptions(commands: readonly CommandSpec[]) {
  const taking = (options: readonly OptionSpec[]) => options.filter((option) => option.type === 'string');
  return [
    ...commands.flatMap((spec) =>
      taking(spec.options ?? []).map((option) => ({
        pattern: `"${spec.path.join(' ')}|--${option.name}"`,
        choices: option.choices,
      })),
    ),
    ...taking(globalOptions).map((option) => ({ pattern: `*"|--${option.name}"`, choices: option.choices })),
  ];
}

const transitions = (commands: readonly CommandSpec[]) =>
  [...new Set(commands.flatMap((spec) => spec.path.map((_, depth) => spec.path.slice(0, depth + 1).join(' '))))].map(
    (path) => {
      const words = path.split(' ');
      return { from: words.slice(0, -1).join(' '), word: words.at(-1) as string, to: path };
    },
  );

const quoteWords = (words: readonly string[]) => words.join(' ');

/**
 * The loop, shared by both shells, that walks the words typed before the cursor to a command: those
 * of the shell's array `words` from index `first` to just before index `cursor`.
 */
const walkToCommand = (commands: readonly CommandSpec[], words: string, first: number, cursor: string) =>
  `  for ((i = ${first}; i < ${cursor}; i++)); do
    word="\${${words}[i]}"
    case "$cmd|$word" in
${transitions(commands)
  .map(({ from, word, to }) => `      "${from}|${word}") cmd="${to}" ;;`)
  .join('\n')}
    esac
  done`;

export function bashCompletion(commands: readonly CommandSpec[], groups: Record<string, string>): string {
  const values = valueOptions(commands);
  return `# bash completion for devplat. Load it with:  source <(devplat completion bash)
_devplat() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" word i
${walkToCommand(commands, 'COMP_WORDS', 1, 'COMP_CWORD')}
  case "$cmd|$prev" in
${values
  .map(({ pattern, choices }) =>
    choices
      ? `    ${pattern}) COMPREPLY=($(compgen -W "${quoteWords(choices)}" -- "$cur")); return ;;`
      : `    ${pattern}) return ;;`,
  )
  .join('\n')}
  esac
  local words=""
  case "$cmd" in
${nodes(commands, groups)
  .map((node) => `    "${node.key}") words="${quoteWords(node.words.map((entry) => entry.word))}" ;;`)
  .join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _devplat devplat
`;
}

const zshEscape = (text: string) => text.replaceAll(':', '\\:').replaceAll("'", "'\\''");

export function zshCompletion(commands: readonly CommandSpec[], groups: Record<string, string>): string {
  const values = valueOptions(commands);
  return `#compdef devplat
# zsh completion for devplat. Load it with:  source <(devplat completion zsh)
# (or save it as _devplat in a directory of your $fpath).
_devplat() {
  local cmd="" word i
  local -a candidates
${walkToCommand(commands, 'words', 2, 'CURRENT')}
  case "$cmd|\${words[CURRENT-1]}" in
${values
  .map(({ pattern, choices }) =>
    choices
      ? `    ${pattern}) compadd -- ${quoteWords(choices)}; return ;;`
      : `    ${pattern}) _message 'value'; return ;;`,
  )
  .join('\n')}
  esac
  case "$cmd" in
${nodes(commands, groups)
  .map(
    (node) =>
      `    "${node.key}") candidates=(${node.words
        .map((entry) => `'${zshEscape(entry.word)}:${zshEscape(entry.description)}'`)
        .join(' ')}) ;;`,
  )
  .join('\n')}
  esac
  _describe 'devplat' candidates
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _devplat "$@"
else
  compdef _devplat devplat
fi
`;
}
