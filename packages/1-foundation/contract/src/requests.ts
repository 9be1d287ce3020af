// Requests checked against the OpenAPI document of the API they call (console-api-*.yaml,
// admin-api-*.yaml): an operation's path parameters, its query and its JSON body, by the schemas the
// document gives them, compiled once when a door starts. A check answers the first thing wrong as a
// finding, a typed value the door words in its own sentences (the console's and the admin's differ);
// a member or parameter may carry an `x-refusal`, the sentence that refuses any value of it the
// schema does not take. Path and query parameters are checked whole. Of a body, the document decides
// which members there are, which are required and their JSON types; what a member's value must be
// (a name trimmed, a redirect URI's form, a known scope) is its room's rule, refused with the room's
// own code and words (e.g. INVALID_REDIRECT_URI), so the member schemas' other keywords describe it.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { DocumentSchemas, type Json, readDocument } from './documents.ts';

/** Why a value does not fit its schema: the JSON Schema keyword it fails, and that keyword's value. */
export interface BrokenRule {
  keyword: string;
  /** The schema's value of the keyword (a maxLength's number, an enum's list, a type's name). */
  limit: unknown;
}

export type RequestFinding =
  | { kind: 'invalidPath'; name: string; value: string; refusal?: string }
  | { kind: 'unknownParameter'; name: string; allowed: readonly string[] }
  | { kind: 'repeatedParameter'; name: string }
  | { kind: 'missingParameter'; name: string; refusal?: string }
  | { kind: 'invalidParameter'; name: string; value: string; rule: BrokenRule; schema: Json; refusal?: string }
  | { kind: 'notObject' }
  | { kind: 'unknownMember'; name: string; allowed: readonly string[] }
  | { kind: 'invalidMember'; name: string; rule: BrokenRule; expected: readonly string[]; refusal?: string };

/** The request as Koa gives it: the route's parameters by name, and the query. */
export interface RequestParts {
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string | string[] | undefined>>;
}

export interface OperationCheck {
  /** Whether the operation documents a request body (the door reads it before the check). */
  readonly takesBody: boolean;
  /** The first thing wrong with the path parameters or the query, if any. */
  parameters(request: RequestParts): RequestFinding | undefined;
  /** The first thing wrong with the body (a parsed JSON value, {} when none was sent), if any. */
  body(value: unknown): RequestFinding | undefined;
}

interface PathCheck {
  name: string;
  /** The name the Koa route gives the same parameter. */
  routeName: string;
  validate: ValidateFunction;
  refusal: { refusal?: string };
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Json;
  'x-refusal'?: string;
}

interface QueryCheck {
  parameter: Parameter;
  validate: ValidateFunction;
  /** Whether a value is read as a number ("50" is 50 for an integer). */
  numeric: boolean;
  schema: Json;
  refusal: { refusal?: string };
}

interface MemberCheck {
  name: string;
  required: boolean;
  /** The member's schema reduced to its JSON types (the value's own rules are its room's). */
  validate: ValidateFunction;
  expected: string[];
  refusal: { refusal?: string };
}

interface BodyCheck {
  allowed: string[];
  closed: boolean;
  members: MemberCheck[];
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];

const loaded = new Map<string, RequestChecks>();

/**
 * The document a door checks its requests against, e.g. `console-api-1.0.0`: read and parsed once
 * a process (npm start's platform, and a test's, build several doors on the same one).
 */
export function requestChecks(documentName: string): RequestChecks {
  let checks = loaded.get(documentName);
  if (!checks) {
    checks = new RequestChecks(readDocument(documentName), `${documentName}.yaml`);
    loaded.set(documentName, checks);
  }
  return checks;
}

export class RequestChecks {
  private readonly document: Json;
  /** The document's name, for a door to say which one lacks an operation. */
  readonly name: string;
  private readonly schemas: DocumentSchemas;

  constructor(document: Json, name = 'the document') {
    this.document = document;
    this.name = name;
    this.schemas = new DocumentSchemas(document, { allErrors: false });
  }

  /**
   * The check of `method` on a Koa route path (`/apps/:clientId/requests`), its parameters matched to
   * the document's path template (`/apps/{client_id}/requests`) by position; undefined when the
   * document has no such operation.
   */
  operation(method: string, routePath: string): OperationCheck | undefined {
    const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, '{}');
    const paths = this.document.paths as Record<string, Json>;
    const template = Object.keys(paths).find((path) => shape(path) === shape(routePath));
    const item = template === undefined ? undefined : paths[template];
    const operation = item?.[method.toLowerCase()] as Json | undefined;
    if (!template || !item || !operation || !httpMethods.includes(method.toLowerCase())) return undefined;
    const routeNames = [...routePath.matchAll(/:([A-Za-z_]+)/g)].map(([, name]) => name as string);
    const parameters = [...((item.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])].map(
      (parameter) => this.schemas.resolve<Parameter>(parameter),
    );
    const pathChecks: PathCheck[] = [...template.matchAll(/\{([^}]+)\}/g)].map(([, name], index) => {
      const parameter = parameters.find((each) => each.in === 'path' && each.name === name);
      return {
        name: name as string,
        routeName: routeNames[index] as string,
        validate: this.schemas.compile(parameter?.schema ?? {}),
        refusal: { ...refusalOf(this.schemas.resolve(parameter?.schema)), ...refusalOf(parameter) },
      };
    });
    const queryChecks: QueryCheck[] = parameters
      .filter((each) => each.in === 'query')
      .map((parameter) => {
        const schema = this.schemas.resolve<Json>(parameter.schema);
        return {
          parameter,
          validate: this.schemas.compile(parameter.schema),
          numeric: schema.type === 'integer' || schema.type === 'number',
          schema,
          refusal: { ...refusalOf(schema), ...refusalOf(parameter) },
        };
      });
    const body = this.bodyCheck(operation);
    return {
      takesBody: body !== undefined,
      parameters: (request) => checkPath(pathChecks, request) ?? checkQuery(queryChecks, request),
      body: (value) => (body === undefined ? undefined : checkBody(body, value)),
    };
  }

  /** Of a member's schema, what says its JSON type: type, and the types of anyOf's and items' schemas. */
  private typesOf(schema: Json): Json {
    const resolved = this.schemas.resolve<Json>(schema);
    const alternatives = (resolved.anyOf ?? resolved.oneOf ?? resolved.allOf) as Json[] | undefined;
    if (resolved.type === undefined && alternatives) {
      const types = alternatives.map((each) => this.typesOf(each));
      return resolved.allOf ? { allOf: types } : { anyOf: types };
    }
    const items = resolved.type === 'array' && resolved.items ? { items: this.typesOf(resolved.items as Json) } : {};
    return resolved.type === undefined ? {} : { type: resolved.type, ...items };
  }

  /** The checks of the operation's application/json body, from its schema (top $ref resolved). */
  private bodyCheck(operation: Json): BodyCheck | undefined {
    if (!operation.requestBody) return undefined;
    const requestBody = this.schemas.resolve<{ content?: Record<string, { schema: Json }> }>(
      operation.requestBody as Json,
    );
    const found = requestBody.content?.['application/json']?.schema;
    if (found === undefined) return undefined;
    const schema = this.schemas.resolve<Json>(found);
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = (schema.required ?? []) as string[];
    const members = Object.entries(properties).map(([name, property]) => {
      const types = this.typesOf(property);
      return {
        name,
        required: required.includes(name),
        validate: this.schemas.compile(types),
        expected: typeNames(types),
        refusal: refusalOf(this.schemas.resolve(property)),
      };
    });
    return { allowed: Object.keys(properties), closed: schema.additionalProperties === false, members };
  }
}

function checkPath(checks: PathCheck[], { params }: RequestParts): RequestFinding | undefined {
  for (const { name, routeName, validate, refusal } of checks) {
    const value = params[routeName] ?? '';
    if (!validate(value)) return { kind: 'invalidPath', name, value, ...refusal };
  }
  return undefined;
}

function checkQuery(checks: QueryCheck[], { query }: RequestParts): RequestFinding | undefined {
  for (const name in query) {
    if (!checks.some(({ parameter }) => parameter.name === name)) {
      return { kind: 'unknownParameter', name, allowed: checks.map(({ parameter }) => parameter.name) };
    }
  }
  for (const { parameter, validate, numeric, schema, refusal } of checks) {
    const { name } = parameter;
    const value = query[name];
    if (value === undefined) {
      if (parameter.required) return { kind: 'missingParameter', name, ...refusal };
      continue;
    }
    if (Array.isArray(value)) return { kind: 'repeatedParameter', name };
    if (!validate(numeric && /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value)) {
      return { kind: 'invalidParameter', name, value, rule: brokenRule(validate.errors), schema, ...refusal };
    }
  }
  return undefined;
}

function checkBody({ allowed, closed, members }: BodyCheck, value: unknown): RequestFinding | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'notObject' };
  if (closed) {
    for (const name in value) {
      if (!allowed.includes(name)) return { kind: 'unknownMember', name, allowed };
    }
  }
  for (const { name, required, validate, expected, refusal } of members) {
    const member = (value as Json)[name];
    if (member === undefined) {
      if (required) return { kind: 'invalidMember', name, rule: requiredRule, expected, ...refusal };
      continue;
    }
    if (!validate(member))
      return { kind: 'invalidMember', name, rule: brokenRule(validate.errors), expected, ...refusal };
  }
  return undefined;
}

/** The JSON types a type-only schema takes: ['string', 'null'], ['array'], … */
function typeNames(schema: Json): string[] {
  const alternatives = (schema.anyOf ?? schema.allOf) as Json[] | undefined;
  if (alternatives) return [...new Set(alternatives.flatMap(typeNames))];
  return schema.type === undefined ? [] : [schema.type as string | string[]].flat();
}

const requiredRule: BrokenRule = { keyword: 'required', limit: true };

const refusalOf = (schema: unknown): { refusal?: string } => {
  const refusal = (schema as Json | undefined)?.['x-refusal'];
  return typeof refusal === 'string' ? { refusal } : {};
};

function brokenRule(errors: ErrorObject[] | null | undefined): BrokenRule {
  const error = errors?.[0];
  if (!error) return { keyword: 'unknown', limit: undefined };
  const params = error.params as Record<string, unknown>;
  const limit =
    params.limit ?? params.allowedValues ?? params.type ?? params.pattern ?? params.format ?? params.allowedValue;
  return { keyword: error.keyword, limit };
}
