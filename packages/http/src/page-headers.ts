// The security headers of every HTML page: the page stack's (pages.ts) and the CLI's loopback
// callback page. Free of Koa, so the light entry point (html-entry.ts) can carry it.

/**
 * The page security headers. `form-action 'self'` is left out only where a form's answer is a
 * redirect to another site: Chrome applies form-action to the redirect too, so with it the consent
 * screen could never send the player back to the app after Allow.
 */
export function pageHeaders(formAction: boolean): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'${formAction ? "; form-action 'self'" : ''}`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}
