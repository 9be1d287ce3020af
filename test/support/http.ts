// An HTTP client for tests that checks every answer against the contract document.
import assert from 'node:assert/strict';
import { ContractValidator, type ContractVersion } from '@devplat/contract/openapi';

const validators = new Map<ContractVersion, ContractValidator>();
export function contractValidator(version: ContractVersion = '1.1.0'): ContractValidator {
  let validator = validators.get(version);
  if (!validator) {
    validator = new ContractValidator(version);
    validators.set(version, validator);
  }
  return validator;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies freely
  json: any;
}

/**
 * Calls `{base}{path}` and asserts the answer conforms to the contract document for that
 * operation and status (both documents where the operation exists in both).
 */
export async function call(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
  const text = await response.text();
  const method = init.method ?? 'GET';
  const relative = path.split('?')[0] as string;
  const observed = { method, path: relative, status: response.status, headers: response.headers, body: text };
  const errors = contractValidator('1.1.0').check(observed);
  if (
    contractValidator('1.0.0')
      .operations()
      .some((op) => op.endsWith(` ${relative}`))
  ) {
    errors.push(...contractValidator('1.0.0').check(observed));
  }
  assert.deepEqual(errors, [], `${method} ${path} does not conform to the contract`);
  return { status: response.status, headers: response.headers, text, json: jsonOf(text) };
}

/** A body parsed as JSON, or undefined when it is empty or not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The seven members of a contract Problem, sorted: a Problem has these and no others. */
export const problemMembers = ['code', 'detail', 'instance', 'request_id', 'status', 'title', 'type'];

/** Asserts a Problem with this status and code, and nothing internal in it. */
export function assertProblem(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.headers.get('content-type'), 'application/problem+json');
  assert.equal(answer.json.code, code);
  assert.equal(answer.json.status, status);
  assert.equal(answer.json.request_id, answer.headers.get('x-request-id'));
  assert.doesNotMatch(answer.text, /\bat .*\.ts:\d+|Error:|stack/i, 'no stack trace or internal message');
}
