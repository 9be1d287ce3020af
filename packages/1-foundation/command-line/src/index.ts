// One command framework for the devplat CLI and the admin command: one command table shape
// (spec.ts), one parser over node:util parseArgs (parse.ts), one usage-error type whose problems
// each program words itself (usage-error.ts), one "did you mean" (suggest.ts), and the parts of
// every help page (help.ts). Each program keeps its own exit codes and its pages' layout.
export {
  alignColumns,
  argumentRows,
  argumentUsage,
  optionLabel,
  optionRows,
  usageLine,
  wrap,
} from './help.ts';
export { type ParsedLine, type Program, parseCommandLine } from './parse.ts';
export { type ArgumentSpec, type CommandSpec, commandName, type OptionSpec, type OptionValues } from './spec.ts';
export { closest } from './suggest.ts';
export { UsageError, type UsageProblem } from './usage-error.ts';
