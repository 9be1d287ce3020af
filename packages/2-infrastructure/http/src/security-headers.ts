// The security headers, defined once: every JSON API answer's (headers.ts) and every HTML page's
// (the page stack's, pages.ts, and the CLI's loopback callback page). Free of Koa and of the
// contract, so the light entry point (html-entry.ts) can carry it.

/** No sniffing, no framing, no referrer leaks, and what the answer may load or do (its CSP). */
export function securityHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': contentSecurityPolicy,
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * The page security headers. `form-action 'self'` is left out only where a form's answer is a
 * redirect to another site: Chrome applies form-action to the redirect too, so with it the consent
 * screen could never send the player back to the app after Allow. `scripts` (the console's pages
 * alone) allows the site's own script files and its own streams: still no inline script, no eval,
 * no other origin.
 */
export function pageHeaders(formAction: boolean, scripts = false): Record<string, string> {
  return {
    ...securityHeaders(
      `default-src 'none'; style-src 'unsafe-inline'${scripts ? "; script-src 'self'; connect-src 'self'" : ''}; base-uri 'none'; frame-ancestors 'none'${formAction ? "; form-action 'self'" : ''}`,
    ),
    'Cache-Control': 'no-store',
  };
}
