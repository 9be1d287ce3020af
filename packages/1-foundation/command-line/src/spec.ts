// What a command is, for both command lines (the devplat CLI and the admin command): the words
// that name it, its arguments and options (from which the parser, the help and the CLI's
// completion scripts are all made), and the function that runs it.

export interface OptionSpec {
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** May be given more than once; the values arrive as a list. */
  multiple?: boolean;
  /** Shown as required; refused when absent if the program checks required options (Program). */
  required?: boolean;
  /** What usage lines show after a string option's name, e.g. "<email>" (default "<value>"). */
  value?: string;
  /** The only values accepted (also offered by shell completion). */
  choices?: readonly string[];
  description: string;
}

export interface ArgumentSpec {
  name: string;
  description?: string;
  /** Takes any number of words, none included (only as the last argument). */
  variadic?: boolean;
  /** The only values accepted (also offered by shell completion). */
  choices?: readonly string[];
}

export interface CommandSpec<Context> {
  /** The words that name it, e.g. ["apps", "create"]. */
  path: string[];
  /** One line for the command list. */
  summary: string;
  /** Paragraphs shown under the usage in the command's help. */
  description?: string[];
  args?: ArgumentSpec[];
  options?: OptionSpec[];
  examples?: string[];
  run(context: Context): Promise<void>;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export const commandName = (spec: { path: string[] }): string => spec.path.join(' ');
