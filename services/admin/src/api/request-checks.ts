// The admin API's requests checked against its OpenAPI document (admin-api-1.0.0.yaml), compiled
// once when the API is built, and each finding worded as the admin API always has: 400
// INVALID_REQUEST saying what was wrong, no value echoed but a query parameter's own.
import { type RequestFinding, requestChecks } from '@devplat/contract/requests';
import { refuse } from '@devplat/domain/refusal';
import { type OperationHandlers, operationChecks } from '@devplat/http';

/**
 * Words for a query value its schema refuses, as the domain's own checks say them (paging.ts): a
 * number out of range says the range, whatever the parameter's x-refusal says of a value that is no
 * number at all.
 */
function parameterWords({ name, value, rule, schema, refusal }: Extract<RequestFinding, { kind: 'invalidParameter' }>) {
  if (rule.keyword === 'minimum' || rule.keyword === 'maximum') {
    return `${name} must be an integer from ${schema.minimum} to ${schema.maximum} (got ${value})`;
  }
  if (refusal) return refusal.replaceAll('{value}', value);
  if (rule.keyword === 'enum') return `${name} must be one of ${(rule.limit as string[]).join(', ')} (got "${value}")`;
  if (typeof schema.maxLength === 'number') return `${name} must be 1 to ${schema.maxLength} characters`;
  return `${name} is not valid`;
}

export function refuseFinding(finding: RequestFinding): never {
  switch (finding.kind) {
    case 'invalidPath':
      return refuse('INVALID_INPUT', finding.refusal ?? `The ${finding.name} in the path is not valid.`);
    case 'unknownParameter': {
      const takes = finding.allowed.length
        ? `This operation takes ${finding.allowed.join(', ')}.`
        : 'This operation takes none.';
      return refuse('INVALID_INPUT', `Unknown query parameter ${JSON.stringify(finding.name)}. ${takes}`);
    }
    case 'repeatedParameter':
      return refuse('INVALID_INPUT', `The query parameter ${finding.name} is given twice.`);
    case 'missingParameter':
      return refuse('INVALID_INPUT', finding.refusal ?? `This operation needs the query parameter ${finding.name}.`);
    case 'invalidParameter':
      return refuse('INVALID_INPUT', parameterWords(finding));
    case 'notObject':
      return refuse('INVALID_INPUT', 'The body must be a JSON object.');
    case 'unknownMember':
      return refuse(
        'INVALID_INPUT',
        `Unknown member ${JSON.stringify(finding.name)}. Allowed: ${finding.allowed.join(', ') || 'none'}.`,
      );
    case 'invalidMember':
      return refuse(
        'INVALID_INPUT',
        finding.refusal ??
          `${finding.name} must be a ${finding.expected.filter((type) => type !== 'null').join(' or ')}.`,
      );
  }
}

/** Each admin API operation's handlers behind its check (throws for one not documented). */
export const adminRequestChecks = (): ((path: string, handlers: OperationHandlers) => OperationHandlers) =>
  operationChecks(requestChecks('admin-api-1.0.0'), refuseFinding);
