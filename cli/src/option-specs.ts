// Options that several commands declare alike, each kind written once: a value the command cannot
// run without, a filter among fixed values (its help lists them), and the catalogue's scopes.
import { scopeNames } from '@devplat/contract/catalogue';
import type { OptionSpec } from './command.ts';

/** An option that must be given, with its value (a required flag without one would mean nothing). */
export const requiredOption = (
  name: string,
  value: string,
  description: string,
  choices?: readonly string[],
): OptionSpec => ({ name, type: 'string', value, required: true, ...(choices && { choices }), description });

/** Keeps only what has one of the `choices`; its help says `what` and lists them. */
export const filterOption = (name: string, value: string, choices: readonly string[], what: string): OptionSpec => ({
  name,
  type: 'string',
  value,
  choices,
  description: `${what}: ${choices.join(', ')}`,
});

/** --scope, given once per scope, one of the catalogue's. */
export const scopeOption = (description: string): OptionSpec => ({
  name: 'scope',
  type: 'string',
  value: '<scope>',
  multiple: true,
  choices: scopeNames,
  description,
});
