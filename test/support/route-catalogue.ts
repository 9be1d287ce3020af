// What each route of a listener takes, for tests that send every route every kind of input: its
// path parameters from the router that serves it (so a route added is there too), and, from the
// OpenAPI document that describes it (when one does), its query parameters, the examples of its
// request bodies (JSON or form) and whether it takes HTTP Basic client credentials.
import type { Route } from '@devplat/http';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, read as it is
type Json = any;

export interface QueryParameter {
  name: string;
  required: boolean;
  /** The document's example, as text. */
  example: string;
}

export interface BodyExample {
  type: 'json' | 'form';
  /** The document's example, with every member its schema names (absent ones as ''). */
  fields: Record<string, unknown>;
}

export interface Operation {
  listener: string;
  method: string;
  /** As the router holds it: /api/apps/:clientId/secrets/:secretId. */
  path: string;
  /** The path's parameters, in order: the document's names where it describes the route, else the router's. */
  pathParameters: string[];
  query: QueryParameter[];
  bodies: BodyExample[];
  /** The document names HTTP Basic among the operation's ways to authenticate. */
  basic: boolean;
  /** Whether an OpenAPI document describes the operation (else only its path is known). */
  documented: boolean;
}

const routerParameter = /:(\w+)|\{\*(\w+)\}/g;

/** The router's path parameters, in order. */
export const routerParameters = (path: string): string[] =>
  [...path.matchAll(routerParameter)].map((match) => (match[1] ?? match[2]) as string);

/** The path with each parameter written by `value` (already percent-encoded as it should travel). */
export function fillPath(path: string, value: (index: number, name: string) => string): string {
  let index = 0;
  return path.replace(routerParameter, (_whole, name: string | undefined, rest: string | undefined) =>
    value(index++, (name ?? rest) as string),
  );
}

/** A pattern matching the route's paths (for the links and form actions a page holds). */
export function pathPattern(path: string): RegExp {
  // split() with the two groups gives: text, name or undefined, rest or undefined, text, ...
  const parts = path.split(routerParameter);
  let pattern = '';
  for (let index = 0; index < parts.length; index += 3) {
    pattern += (parts[index] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (index + 1 < parts.length) pattern += parts[index + 1] !== undefined ? '([^/]+)' : '(.+)';
  }
  return new RegExp(`^${pattern}$`);
}

function resolve(document: Json, node: Json): Json {
  let resolved = node;
  while (resolved && typeof resolved.$ref === 'string') {
    resolved = (resolved.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, key: string) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return resolved;
}

/** Every member a schema names, through $ref, allOf, oneOf and anyOf. */
function schemaMembers(document: Json, schema: Json): string[] {
  const resolved = resolve(document, schema);
  if (!resolved || typeof resolved !== 'object') return [];
  const own = Object.keys(resolved.properties ?? {});
  const nested = ['allOf', 'oneOf', 'anyOf'].flatMap((key) =>
    ((resolved[key] as Json[]) ?? []).flatMap((branch) => schemaMembers(document, branch)),
  );
  return [...new Set([...own, ...nested])];
}

function bodyExamples(document: Json, operation: Json): BodyExample[] {
  const body = resolve(document, operation.requestBody);
  const examples: BodyExample[] = [];
  for (const [mediaType, type] of [
    ['application/json', 'json'],
    ['application/x-www-form-urlencoded', 'form'],
  ] as const) {
    const content = body?.content?.[mediaType];
    if (!content) continue;
    const members = schemaMembers(document, content.schema);
    const values: Json[] =
      content.example !== undefined
        ? [content.example]
        : Object.values(content.examples ?? {}).map((example) => resolve(document, example).value);
    for (const value of values.length > 0 ? values : [{}]) {
      const fields = typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
      for (const member of members) if (!(member in fields)) fields[member] = '';
      examples.push({ type, fields });
    }
  }
  return examples;
}

/** The path with its parameters as `{}` and the document's base path before it. */
const shape = (path: string) => path.replace(routerParameter, '{}').replace(/\{\w+\}/g, '{}');

function basePath(document: Json): string {
  const server = document.servers?.[0];
  if (!server) return '';
  const url = (server.url as string).replace(
    /\{(\w+)\}/g,
    (_whole, name: string) => server.variables?.[name]?.default ?? '',
  );
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
}

/** What a document says of the operation at the router's path, if it describes it. */
function documented(documents: Json[], method: string, path: string) {
  for (const document of documents) {
    const base = basePath(document);
    for (const [documentPath, item] of Object.entries<Json>(document.paths ?? {})) {
      if (shape(`${base}${documentPath}`) !== shape(path)) continue;
      const operation = item[method.toLowerCase()];
      if (!operation) continue;
      const parameters: Json[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolve(document, parameter),
      );
      const security: Json[] = operation.security ?? document.security ?? [];
      const schemes = document.components?.securitySchemes ?? {};
      return {
        pathParameters: [...documentPath.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string),
        query: parameters
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => ({
            name: parameter.name as string,
            required: parameter.required === true,
            example: parameter.example === undefined ? '' : String(parameter.example),
          })),
        bodies: bodyExamples(document, operation),
        basic: security.some((requirement) =>
          Object.keys(requirement).some((name) => schemes[name]?.type === 'http' && schemes[name]?.scheme === 'basic'),
        ),
      };
    }
  }
  return null;
}

/**
 * Every operation of a listener: each route with each method it answers (GET for a route that
 * answers every method alike), described by `documents` where one of them has it.
 */
export function catalogue(listener: string, routes: readonly Route[], documents: Json[]): Operation[] {
  return routes.flatMap((route) =>
    (route.methods.length > 0 ? route.methods : ['GET']).map((method) => {
      const described = documented(documents, method, route.path);
      return {
        listener,
        method,
        path: route.path,
        pathParameters: described?.pathParameters ?? routerParameters(route.path),
        query: described?.query ?? [],
        bodies: described?.bodies ?? [],
        basic: described?.basic ?? false,
        documented: described !== null,
      };
    }),
  );
}
