export { buildMockApp } from './app.ts';
