// The contract as OpenAPI 3.1.1 documents, and a validator that checks a real response against
// them: status documented for the operation, content type, body schema and required headers. The
// developer console's JSON API and the operators' admin API have documents of their own
// (console-api-*.yaml, admin-api-*.yaml), checked likewise by ConsoleApiValidator and
// AdminApiValidator, and more strictly (the method, the Allow of a 405, a Problem's own members).
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { DocumentSchemas, documentPath, type Json, readDocument } from './documents.ts';

export const contractVersions = ['1.1.0', '1.0.0'] as const;
export type ContractVersion = (typeof contractVersions)[number];

interface ResponseObject {
  content?: Record<string, { schema: Json }>;
  headers?: Record<string, { required?: boolean; schema: Json } | { $ref: string }>;
  $ref?: string;
}

export const contractDocumentPath = (version: ContractVersion): string => documentPath(`developer-platform-${version}`);

export const loadContractDocument = (version: ContractVersion): Json => readDocument(`developer-platform-${version}`);

export interface ObservedResponse {
  method: string;
  /** The path relative to {base_url}, e.g. /cities (no query). */
  path: string;
  status: number;
  headers: Headers;
  /** The raw body text. */
  body: string;
}

/** The methods of an OpenAPI path item (its other keys are parameters, description, ...). */
const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** One OpenAPI document with the schema validator every check uses (documents.ts), all errors. */
export class OpenApiDocumentValidator {
  protected readonly document: Json;
  private readonly schemas: DocumentSchemas;

  constructor(document: Json) {
    this.document = document;
    this.schemas = new DocumentSchemas(document, { allErrors: true });
  }

  protected resolve<T>(object: T | { $ref: string }): T {
    return this.schemas.resolve<T>(object);
  }

  /** What the answer's headers lack or get wrong of those the response object documents. */
  protected headerErrors(where: string, spec: ResponseObject, headers: Headers): string[] {
    const errors: string[] = [];
    for (const [name, header] of Object.entries(spec.headers ?? {})) {
      const { required, schema } = this.resolve<{ required?: boolean; schema: Json }>(header);
      const value = headers.get(name);
      if (value === null) {
        if (required) errors.push(`${where}: header ${name} missing`);
      } else if (!this.validator(schema)(value)) {
        errors.push(`${where}: header ${name} is "${value}"`);
      }
    }
    return errors;
  }

  protected validator(schema: Json): ValidateFunction {
    return this.schemas.compile(schema);
  }

  /** Operations of the document as "METHOD path". */
  operations(): string[] {
    const paths = this.document.paths as Record<string, Record<string, unknown>>;
    return Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => httpMethods.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  /** Checks a body against a named schema, e.g. Problem; returns the problems found. */
  checkSchema(name: string, value: unknown): string[] {
    const validate = this.validator({ $ref: `#/components/schemas/${name}` });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message}`);
  }

  /** Checks a value against a schema of the document (its $refs resolved); returns the problems found. */
  checkValue(schema: Json, value: unknown): string[] {
    const validate = this.validator(schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }
}

export class ContractValidator extends OpenApiDocumentValidator {
  readonly version: ContractVersion;

  constructor(version: ContractVersion) {
    super(loadContractDocument(version));
    this.version = version;
  }

  /** Returns every way the response departs from the document; empty when it conforms. */
  check(response: ObservedResponse): string[] {
    const where = `${response.method} ${response.path} → ${response.status}`;
    const item = (this.document.paths as Record<string, Record<string, Json>>)[response.path];
    const operation = item?.[response.method.toLowerCase()] ?? (item && Object.values(item)[0]);
    if (!operation) return this.checkProblem(response, where);
    const responses = operation.responses as Record<string, ResponseObject>;
    const documented = responses[String(response.status)];
    if (!documented) return [`${where}: status not documented for this operation`];
    const spec = this.resolve<ResponseObject>(documented);
    const errors: string[] = this.headerErrors(where, spec, response.headers);
    if (!spec.content) {
      if (response.body !== '') errors.push(`${where}: body must be empty`);
      return errors;
    }
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = spec.content[contentType];
    if (!media) return [...errors, `${where}: content type "${contentType}" not documented`];
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return [...errors, `${where}: body is not JSON`];
    }
    const validate = this.validator(media.schema);
    if (!validate(body)) {
      errors.push(...(validate.errors ?? []).map((e) => `${where}: body${e.instancePath} ${e.message}`));
    }
    return errors;
  }

  // Paths the document does not name (unknown paths) answer a Problem with the common headers.
  private checkProblem(response: ObservedResponse, where: string): string[] {
    const errors: string[] = [];
    if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
      errors.push(`${where}: not application/problem+json`);
    }
    for (const name of ['X-Request-ID', 'X-Service-API-Version', 'Cache-Control']) {
      if (!response.headers.get(name)) errors.push(`${where}: header ${name} missing`);
    }
    try {
      errors.push(...this.checkSchema('Problem', JSON.parse(response.body)).map((e) => `${where}: ${e}`));
    } catch {
      errors.push(`${where}: body is not JSON`);
    }
    return errors;
  }
}

export const consoleApiVersions = ['1.0.0'] as const;
export type ConsoleApiVersion = (typeof consoleApiVersions)[number];

export const consoleApiDocumentPath = (version: ConsoleApiVersion = '1.0.0'): string =>
  documentPath(`console-api-${version}`);

export const loadConsoleApiDocument = (version: ConsoleApiVersion = '1.0.0'): Json =>
  readDocument(`console-api-${version}`);

/** A request the console API answered, to check its body against the operation's requestBody. */
export interface ObservedRequest {
  method: string;
  /** The path relative to {console_url}/api, e.g. /apps (no query). */
  path: string;
  /** The Content-Type sent, if any. */
  contentType?: string;
  /** The body sent; undefined or '' for none. */
  body?: string;
}

type Operation = { responses: Record<string, ResponseObject | { $ref: string }>; requestBody?: Json };
type MediaType = { schema: Json; 'x-event-data'?: Json };

// The order @devplat/http's operation() writes the Allow header in.
const allowOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const mediaTypeOf = (value: string | null | undefined) => (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/**
 * Checks the answers of one of our own JSON APIs (the console's, the admin's) against its document,
 * strictly: the path must be one of the document's (any other answers the document's 404 or 503
 * Problem); a method the path has must answer a status its operation declares, and never 405; a
 * method it lacks must answer 405 with Allow naming exactly the path's methods (a path whose
 * operations declare no 405, such as the console's production-credentials paths, answers every
 * method alike); then the declared headers, the content type, the body against the schema (each
 * Server-Sent Event's data too), and for a Problem its request_id (the X-Request-ID) and instance
 * (the request path).
 */
export class StrictApiValidator extends OpenApiDocumentValidator {
  /** The path of the server URL, e.g. /api: what a Problem's instance starts with. */
  private readonly basePath: string;
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(document: Json) {
    super(document);
    const server = (this.document.servers as { url: string; variables: Record<string, { default: string }> }[])[0];
    const url = server?.url.replace(/\{(\w+)\}/g, (_, name: string) => server.variables[name]?.default ?? '') ?? '';
    this.basePath = new URL(url).pathname.replace(/\/$/, '');
    // Templates with fewer parameters first, so a literal path wins over a template it also fits.
    this.templates = Object.keys(this.document.paths as Json)
      .map((template) => ({
        template,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.params - b.params)
      .map(({ template, pattern }) => ({ template, pattern }));
  }

  /** The document's path template a request path falls under, e.g. /apps/{client_id}. */
  pathTemplate(path: string): string | undefined {
    return this.templates.find(({ pattern }) => pattern.test(path))?.template;
  }

  private pathItem(template: string): Record<string, Operation> {
    const item = (this.document.paths as Record<string, Record<string, Operation>>)[template] ?? {};
    return Object.fromEntries(Object.entries(item).filter(([key]) => httpMethods.includes(key)));
  }

  /** The operation answering `method` on a path item: HEAD is answered by GET. */
  private operationFor(item: Record<string, Operation>, method: string): Operation | undefined {
    const name = method.toLowerCase();
    return item[name] ?? (name === 'head' ? item.get : undefined);
  }

  /** Returns every way the answer departs from the document; empty when it conforms. */
  check(response: ObservedResponse): string[] {
    const where = `${response.method} ${response.path} → ${response.status}`;
    const template = this.pathTemplate(response.path);
    if (!template) {
      // An unknown path: 404 NOT_FOUND, or 503 (the console switched off, say), as the document says.
      const { responses } = this.document.components as { responses: Record<string, ResponseObject> };
      const answers: Record<number, ResponseObject | undefined> = {
        404: responses.NotFound,
        503: responses.Unavailable,
      };
      const spec = answers[response.status];
      if (!spec) return [`${where}: an unknown path answers 404 (or 503), not ${response.status}`];
      return this.conforms(where, spec, response);
    }
    const item = this.pathItem(template);
    const operation = this.operationFor(item, response.method);
    if (operation) {
      if (response.status === 405) return [`${where}: 405 for a method the path has`];
      const documented = operation.responses[String(response.status)];
      if (!documented) return [`${where}: status not documented for ${response.method.toUpperCase()} ${template}`];
      return this.conforms(where, this.resolve<ResponseObject>(documented), response);
    }
    const operations = Object.values(item);
    const refusal = operations.map((each) => each.responses['405']).find((each) => each !== undefined);
    if (!refusal) {
      // The path answers every method alike.
      const documented = operations[0]?.responses[String(response.status)];
      if (!documented) return [`${where}: status not documented for ${template}`];
      return this.conforms(where, this.resolve<ResponseObject>(documented), response);
    }
    if (response.status !== 405) return [`${where}: ${template} has no ${response.method}, so it answers 405`];
    const errors = this.conforms(where, this.resolve<ResponseObject>(refusal), response);
    const methods = Object.keys(item).map((name) => name.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    const allow = allowOrder.filter((name) => methods.includes(name)).join(', ');
    if (response.headers.get('allow') !== allow) {
      errors.push(`${where}: Allow is "${response.headers.get('allow')}", the document says "${allow}"`);
    }
    return errors;
  }

  /**
   * Checks the body of a request the console accepted (a 2xx answer) against the operation's
   * requestBody: what the service takes, the document must allow. Returns the problems found.
   */
  checkRequest(request: ObservedRequest): string[] {
    const where = `${request.method} ${request.path} (request body)`;
    const template = this.pathTemplate(request.path);
    const operation = template && this.operationFor(this.pathItem(template), request.method);
    if (!operation) return [];
    const requestBody = operation.requestBody
      ? this.resolve<{ required?: boolean; content: Record<string, MediaType> }>(operation.requestBody as never)
      : undefined;
    if (request.body === undefined || request.body === '') {
      return requestBody?.required ? [`${where}: a body is required`] : [];
    }
    if (!requestBody) return [`${where}: the operation takes no body`];
    const media = requestBody.content[mediaTypeOf(request.contentType)];
    if (!media) return [`${where}: content type "${request.contentType}" not documented`];
    let value: unknown;
    try {
      value = JSON.parse(request.body);
    } catch {
      return [`${where}: not JSON`];
    }
    return this.checkValue(media.schema, value).map((error) => `${where}: ${error}`);
  }

  private conforms(where: string, spec: ResponseObject, response: ObservedResponse): string[] {
    const errors: string[] = this.headerErrors(where, spec, response.headers);
    const head = response.method.toUpperCase() === 'HEAD';
    if (!spec.content) {
      if (response.body !== '') errors.push(`${where}: body must be empty`);
      if (response.headers.get('content-type') !== null) errors.push(`${where}: no Content-Type is documented`);
      return errors;
    }
    const contentType = mediaTypeOf(response.headers.get('content-type'));
    const media = (spec.content as Record<string, MediaType>)[contentType];
    if (!media) return [...errors, `${where}: content type "${contentType}" not documented`];
    if (head) {
      if (response.body !== '') errors.push(`${where}: a HEAD answer has no body`);
      return errors;
    }
    if (!isJson(contentType)) {
      errors.push(...this.checkValue(media.schema, response.body).map((e) => `${where}: body${e}`));
      if (contentType === 'text/event-stream' && media['x-event-data']) {
        errors.push(...this.checkEvents(where, media['x-event-data'], response.body));
      }
      return errors;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return [...errors, `${where}: body is not JSON`];
    }
    errors.push(...this.checkValue(media.schema, body).map((e) => `${where}: body${e}`));
    if (contentType === 'application/problem+json' && typeof body === 'object' && body !== null) {
      const problem = body as { status?: unknown; request_id?: unknown; instance?: unknown };
      if (problem.status !== response.status) errors.push(`${where}: the Problem's status is ${problem.status}`);
      if (problem.request_id !== response.headers.get('x-request-id')) {
        errors.push(`${where}: the Problem's request_id is not the X-Request-ID`);
      }
      const instance = `${this.basePath}${response.path}`;
      if (typeof problem.instance === 'string' && problem.instance.startsWith('/') && problem.instance !== instance) {
        errors.push(`${where}: the Problem's instance is "${problem.instance}", not "${instance}"`);
      }
    }
    return errors;
  }

  /** Checks the data of every message of a Server-Sent Events body against `schema`. */
  checkEvents(where: string, schema: Json, stream: string): string[] {
    const errors: string[] = [];
    for (const message of stream.split('\n\n')) {
      const data = message
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        errors.push(`${where}: an event's data is not JSON`);
        continue;
      }
      errors.push(...this.checkValue(schema, value).map((e) => `${where}: event data${e}`));
    }
    return errors;
  }
}

/** The console API's answers against console-api-*.yaml (StrictApiValidator's rules). */
export class ConsoleApiValidator extends StrictApiValidator {
  readonly version: ConsoleApiVersion;

  constructor(version: ConsoleApiVersion = '1.0.0') {
    super(loadConsoleApiDocument(version));
    this.version = version;
  }
}

export const adminApiVersions = ['1.0.0'] as const;
export type AdminApiVersion = (typeof adminApiVersions)[number];

export const adminApiDocumentPath = (version: AdminApiVersion = '1.0.0'): string =>
  documentPath(`admin-api-${version}`);

export const loadAdminApiDocument = (version: AdminApiVersion = '1.0.0'): Json => readDocument(`admin-api-${version}`);

/** The admin API's answers against admin-api-*.yaml (StrictApiValidator's rules). */
export class AdminApiValidator extends StrictApiValidator {
  readonly version: AdminApiVersion;

  constructor(version: AdminApiVersion = '1.0.0') {
    super(loadAdminApiDocument(version));
    this.version = version;
  }
}
