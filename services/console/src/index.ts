export { buildConsoleApp, type ConsoleDependencies, consoleEnabled } from './app.ts';
