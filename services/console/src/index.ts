export { buildConsoleApp, type ConsoleDependencies } from './app.ts';
