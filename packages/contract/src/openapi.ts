// The contract as OpenAPI 3.1.1 documents, and a validator that checks a real response against
// them: status documented for the operation, content type, body schema and required headers.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

export const contractVersions = ['1.1.0', '1.0.0'] as const;
export type ContractVersion = (typeof contractVersions)[number];

type Json = Record<string, unknown>;
interface ResponseObject {
  content?: Record<string, { schema: Json }>;
  headers?: Record<string, { required?: boolean; schema: Json } | { $ref: string }>;
  $ref?: string;
}

export function contractDocumentPath(version: ContractVersion): string {
  return new URL(`../openapi/developer-platform-${version}.yaml`, import.meta.url).pathname;
}

export function loadContractDocument(version: ContractVersion): Json {
  return parse(readFileSync(contractDocumentPath(version), 'utf8')) as Json;
}

export interface ObservedResponse {
  method: string;
  /** The path relative to {base_url}, e.g. /cities (no query). */
  path: string;
  status: number;
  headers: Headers;
  /** The raw body text. */
  body: string;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export class ContractValidator {
  readonly version: ContractVersion;
  private readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(version: ContractVersion) {
    this.version = version;
    this.document = loadContractDocument(version);
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'contract', components: (this.document as { components: Json }).components });
  }

  private resolve<T>(object: T | { $ref: string }): T {
    const ref = (object as { $ref?: string }).$ref;
    if (!ref) return object as T;
    let node: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Json)[part];
    return node as T;
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      const rewritten = JSON.parse(key.replaceAll('"#/components/', '"contract#/components/'));
      validate = this.ajv.compile(rewritten);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Operations of the document as "METHOD path". */
  operations(): string[] {
    const paths = this.document.paths as Record<string, Record<string, unknown>>;
    return Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  /** Checks a body against a named schema, e.g. Problem; returns the problems found. */
  checkSchema(name: string, value: unknown): string[] {
    const validate = this.validator({ $ref: `#/components/schemas/${name}` });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message}`);
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
    const errors: string[] = [];
    for (const [name, header] of Object.entries(spec.headers ?? {})) {
      const { required, schema } = this.resolve<{ required?: boolean; schema: Json }>(header);
      const value = response.headers.get(name);
      if (value === null) {
        if (required) errors.push(`${where}: header ${name} missing`);
      } else if (!this.validator(schema)(value)) {
        errors.push(`${where}: header ${name} is "${value}"`);
      }
    }
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
