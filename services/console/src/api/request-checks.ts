// The console API's requests checked against its OpenAPI document (console-api-1.0.0.yaml), compiled
// once when the router is built, and each finding worded as the console always has. A path
// parameter no resource could have answers as that resource not found; the rest is 400
// INVALID_REQUEST (the domain's INVALID_INPUT), saying what was wrong.
import { type RequestFinding, requestChecks } from '@devplat/contract/requests';
import { type RefusalCode, refuse } from '@devplat/domain/refusal';
import { type OperationHandlers, operationChecks } from '@devplat/http';

/** What a path parameter names, when its value could name nothing. */
const notFoundCodes: Record<string, RefusalCode> = {
  client_id: 'APP_NOT_FOUND',
  secret_id: 'SECRET_NOT_FOUND',
  player_id: 'PLAYER_NOT_FOUND',
  delivery_id: 'DELIVERY_NOT_FOUND',
  key_id: 'API_KEY_NOT_FOUND',
};

/** "a and b", "a, b, c". */
const listed = (names: readonly string[]) => (names.length === 2 ? `${names[0]} and ${names[1]}` : names.join(', '));

/** An x-refusal's sentence, the value (or its first `max` characters) in place of {value}. */
const filled = (refusal: string, value: string, max = Number.POSITIVE_INFINITY) =>
  refusal.replaceAll('{value}', value.slice(0, max));

function memberWords(name: string, expected: readonly string[]): string {
  if (expected.includes('array')) return `${name} must be an array of strings.`;
  if (expected.includes('string')) return `${name} is required and must be a string.`;
  if (expected.includes('integer')) return `${name} must be a whole number.`;
  return `${name} must be ${expected.join(' or ')}.`;
}

export function refuseFinding(finding: RequestFinding): never {
  switch (finding.kind) {
    case 'invalidPath':
      return refuse(
        notFoundCodes[finding.name] ?? 'INVALID_INPUT',
        filled(finding.refusal ?? `${finding.name} in the path is not valid.`, finding.value),
      );
    case 'unknownParameter':
      return refuse(
        'INVALID_INPUT',
        finding.allowed.length === 0
          ? `Unknown query parameter ${finding.name}: this operation takes none.`
          : `Unknown query parameter ${finding.name}: only ${listed(finding.allowed)}.`,
      );
    case 'repeatedParameter':
      return refuse('INVALID_INPUT', `${finding.name} may appear once.`);
    case 'missingParameter':
      return refuse('INVALID_INPUT', finding.refusal ?? `The query parameter ${finding.name} is required.`);
    case 'invalidParameter':
      return refuse('INVALID_INPUT', filled(finding.refusal ?? `${finding.name} is not valid.`, finding.value, 40));
    case 'notObject':
      return refuse('INVALID_INPUT', 'The body must be a JSON object.');
    case 'unknownMember':
      return refuse(
        'INVALID_INPUT',
        finding.allowed.length === 0
          ? `Unknown field ${JSON.stringify(finding.name)}: this operation takes none (send {} or no body).`
          : `Unknown field ${JSON.stringify(finding.name)}. Allowed: ${finding.allowed.join(', ')}.`,
      );
    case 'invalidMember':
      return refuse('INVALID_INPUT', finding.refusal ?? memberWords(finding.name, finding.expected));
  }
}

/** Each console API operation's handlers behind its check (throws for one not documented). */
export const consoleRequestChecks = (): ((path: string, handlers: OperationHandlers) => OperationHandlers) =>
  operationChecks(requestChecks('console-api-1.0.0'), refuseFinding);
