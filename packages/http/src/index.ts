export * from './errors.ts';
export * from './forms.ts';
export * from './headers.ts';
export * from './logger.ts';
export * from './problem.ts';
export * from './routes.ts';
export * from './server.ts';
export * from './tokens.ts';
