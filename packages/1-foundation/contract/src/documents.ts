// The OpenAPI documents of packages/1-foundation/contract/openapi, read and parsed, and their schemas compiled one
// way: Ajv for JSON Schema 2020-12 (strict off, so OpenAPI's own keywords such as `example` pass)
// with ajv-formats, each schema once, its #/components/ references resolved in its document. Shared
// by the request checks the console and admin APIs run (requests.ts) and the validators the tests
// and tools use (openapi.ts).
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

export type Json = Record<string, unknown>;

/** A document's file by its name, e.g. `console-api-1.0.0`. */
export const documentPath = (name: string): string => new URL(`../openapi/${name}.yaml`, import.meta.url).pathname;

export const readDocument = (name: string): Json => parse(readFileSync(documentPath(name), 'utf8')) as Json;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export class DocumentSchemas {
  readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** `allErrors`: every error of a value (a validator's report), or only the first (a refusal's). */
  constructor(document: Json, { allErrors }: { allErrors: boolean }) {
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'document', components: document.components });
  }

  /** The validator of a schema of the document, compiled the first time it is asked for. */
  compile(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"document#/components/')));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The object a `$ref` names, followed to the end; the referring object's other members win. */
  resolve<T>(object: unknown): T {
    let node = object as Json;
    while (typeof node?.$ref === 'string') {
      let target: unknown = this.document;
      for (const part of (node.$ref as string).replace(/^#\//, '').split('/')) target = (target as Json)[part];
      node = { ...(target as Json), ...Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$ref')) };
    }
    return node as T;
  }
}
