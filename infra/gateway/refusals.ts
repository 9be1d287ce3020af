// What the gateway answers when it refuses a request itself (a body, header or URL too large, a
// request it cannot parse, no replica answering), as nginx configuration: exactly what a service
// answers for the same request, so an app cannot tell the gateway from `npm start`. The same text
// goes into nginx.conf.template (render.ts) and into the Kubernetes Ingress's snippets (checked
// by test/infra/kubernetes/routing.test.ts).
//
// Every answer carries the gateway's request id, req_$request_id, which nginx also logs and passes
// upstream as X-Request-ID: one id names a request in the gateway's log and the services'.

import type { Site } from '../../packages/2-infrastructure/http/src/layout.ts';
import { pageSites, refusalPageHtml } from '../../packages/2-infrastructure/http/src/refusal-pages.ts';

/** The id nginx gives a request, in the services' format (req_ + 32 hex digits). */
export const gatewayRequestId = 'req_$request_id';

export { pageSites };

// Values that hold no user input: the instance is the request's URN (as the services' own
// refusals of unparseable requests), never the path, which would have to be escaped for JSON.
const problem = (status: number, code: string, slug: string, title: string, detail: string) =>
  JSON.stringify({
    type: `urn:developer-platform:problem:${slug}`,
    title,
    status,
    detail,
    instance: `urn:developer-platform:request:${gatewayRequestId}`,
    code,
    request_id: gatewayRequestId,
  });

/** The services' headers on every Problem and OAuthError: common and security headers. */
const commonHeaders = [
  `X-Request-ID ${gatewayRequestId}`,
  'X-Service-API-Version 1.0',
  'Cache-Control no-store',
  'X-Content-Type-Options nosniff',
  'X-Frame-Options DENY',
  `Content-Security-Policy "default-src 'none'; frame-ancestors 'none'"`,
  'Referrer-Policy no-referrer',
];
/** The token endpoint's answers also carry its CORS headers (oidc-provider's). */
const oauthHeaders = [
  ...commonHeaders,
  'Access-Control-Allow-Origin *',
  'Access-Control-Expose-Headers WWW-Authenticate',
];
/** The page sites' headers (packages/2-infrastructure/http's pageHeaders). */
const pageHeaders = [
  `X-Request-ID ${gatewayRequestId}`,
  'Cache-Control no-store',
  'X-Content-Type-Options nosniff',
  'X-Frame-Options DENY',
  `Content-Security-Policy "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"`,
  'Referrer-Policy no-referrer',
];

/** An nginx single-quoted string: its variables ($request_id) still expand. */
const quoted = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

// A refusal of a request whose request line nginx could not read (400, 414) can only go to a URI,
// never to a named location (nginx: "empty URI in redirect to named location"): those are internal
// locations under /__devplat/, and a client asking for one gets the 404 of any unknown path.
const refusalLocation = (name: string, type: string, headers: string[], status: number, body: string) => [
  name.startsWith('/') ? `location = ${name} {` : `location @${name} {`,
  ...(name.startsWith('/') ? ['  internal;'] : []),
  `  default_type "${type}";`,
  ...headers.map((header) => `  add_header ${header} always;`),
  `  return ${status} ${quoted(body)};`,
  '}',
];

const problemType = 'application/problem+json';

// The services' own wording (packages/2-infrastructure/http/src/server.ts, envelope.ts, the token endpoint).
const headersTooLarge = problem(
  431,
  'HEADERS_TOO_LARGE',
  'headers-too-large',
  'Request headers too large',
  'The request headers are larger than 16 KiB.',
);
const malformed = problem(
  400,
  'MALFORMED_REQUEST',
  'malformed-request',
  'Malformed request',
  'The request is not valid HTTP/1.1.',
);
const notFound = problem(404, 'NOT_FOUND', 'not-found', 'Not found', 'No operation exists at this path.');
const methodNotAllowed = problem(
  405,
  'METHOD_NOT_ALLOWED',
  'method-not-allowed',
  'Method not allowed',
  '$request_method is not allowed here. Allowed: $devplat_allow.',
);

// nginx refuses some methods itself (TRACE) before any replica sees them. The services answer a
// wrong method on an operation 405 with its Allow, and on any other path 404: so does this.
const operationMethods = [
  ['^/developer/v1/oauth/(token|revoke)$', 'POST'],
  [
    '^(/developer/v1/(capabilities|regions|status|cities|me|\\.well-known/oauth-authorization-server)|/\\.well-known/oauth-authorization-server/developer/v1)$',
    'GET, HEAD',
  ],
] as const;
const wrongMethodLocation = () => [
  'location @devplat_not_allowed {',
  `  default_type "${problemType}";`,
  ...[...commonHeaders, 'Allow $devplat_allow'].map((header) => `  add_header ${header} always;`),
  '  set $devplat_allow "";',
  ...operationMethods.map(([path, allow]) => `  if ($uri ~ "${path}") { set $devplat_allow "${allow}"; }`),
  `  if ($devplat_allow = "") { return 404 ${quoted(notFound)}; }`,
  `  return 405 ${quoted(methodNotAllowed)};`,
  '}',
];
const tooLarge = problem(
  413,
  'PAYLOAD_TOO_LARGE',
  'payload-too-large',
  'Request body too large',
  'The request body is larger than this endpoint accepts.',
);
const unavailable = problem(
  503,
  'SERVICE_UNAVAILABLE',
  'service-unavailable',
  'Service temporarily unavailable',
  'The service is temporarily unavailable. Try again shortly.',
);
const oauthTooLarge = JSON.stringify({
  error: 'invalid_request',
  error_description: 'failed to parse the request body',
});

/**
 * nginx lets a header line be as long as one of these buffers: larger than the services' 16 KiB
 * for all headers together, so whatever a service would answer (its 431 Problem, or a 401 for an
 * 8 KiB bearer token) it answers itself; past them, the gateway's 431 says the same.
 */
export const headerBuffers = '4 32k';

/** The server-level refusals of {base_url}'s host: Problems, as the services answer. */
export function apiSiteRefusals(): string[] {
  return [
    ...apiErrorPages,
    ...refusalLocation('/__devplat/malformed', problemType, commonHeaders, 400, malformed),
    ...refusalLocation('/__devplat/uri-too-large', problemType, commonHeaders, 431, headersTooLarge),
    ...refusalLocation('devplat_not_found', problemType, commonHeaders, 404, notFound),
    ...wrongMethodLocation(),
    ...refusalLocation('devplat_too_large', problemType, commonHeaders, 413, tooLarge),
    ...refusalLocation('devplat_oauth_too_large', 'application/json; charset=utf-8', oauthHeaders, 400, oauthTooLarge),
    ...refusalLocation('devplat_headers_too_large', problemType, commonHeaders, 431, headersTooLarge),
    ...refusalLocation('devplat_unavailable', problemType, commonHeaders, 503, unavailable),
  ];
}

/**
 * The refusals of the OAuth operations' location (/developer/v1/oauth/): an oversized form is the
 * token endpoint's 400 invalid_request (the contract lists no 413 there). A location's error_page
 * replaces the server's, so the others are repeated.
 */
export function oauthLocationRefusals(): string[] {
  return apiErrorPages.map((line) => line.replace('@devplat_too_large', '@devplat_oauth_too_large'));
}

const apiErrorPages = [
  'error_page 400 =400 /__devplat/malformed;',
  'error_page 404 = @devplat_not_found;',
  'error_page 405 = @devplat_not_allowed;',
  'error_page 413 = @devplat_too_large;',
  'error_page 414 =431 /__devplat/uri-too-large;',
  'error_page 494 = @devplat_headers_too_large;',
  'error_page 502 503 504 = @devplat_unavailable;',
];

/** The server-level refusals of a page site (the player client, the console): its HTML pages. */
export function pageSiteRefusals(site: Site): string[] {
  const page = (name: string, status: number, title: string, message: string) =>
    refusalLocation(name, 'text/html; charset=utf-8', pageHeaders, status, refusalPageHtml(site, title, message));
  const reference = `Reference: ${gatewayRequestId}.`;
  return [
    'error_page 400 =400 /__devplat/malformed;',
    'error_page 404 = @devplat_page_not_found;',
    'error_page 405 = @devplat_page_not_allowed;',
    'error_page 413 = @devplat_page_too_large;',
    'error_page 414 =431 /__devplat/uri-too-large;',
    'error_page 494 = @devplat_page_headers_too_large;',
    'error_page 502 503 504 = @devplat_page_unavailable;',
    ...page('/__devplat/malformed', 400, 'That did not work', 'The request is not valid HTTP/1.1.'),
    ...page('/__devplat/uri-too-large', 431, 'That did not work', 'The request headers are larger than 16 KiB.'),
    ...page('devplat_page_not_found', 404, 'Not found', 'There is no page here.'),
    ...page('devplat_page_not_allowed', 405, 'That did not work', 'This method is not allowed here.'),
    ...page('devplat_page_too_large', 413, 'That did not work', 'The request body is larger than this page accepts.'),
    ...page('devplat_page_headers_too_large', 431, 'That did not work', 'The request headers are larger than 16 KiB.'),
    ...page(
      'devplat_page_unavailable',
      503,
      'Something went wrong',
      `The service is temporarily unavailable. Try again shortly. ${reference}`,
    ),
  ];
}
