import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiVersion } from '@devplat/contract';
import { newRequestId } from './headers.ts';
import type { Site } from './layout.ts';
import { buildProblem, problemContentType } from './problem.ts';
import { refusalPageHtml } from './refusal-pages.ts';
import { pageHeaders } from './security-headers.ts';

export interface RunningServer {
  server: Server;
  /** http://host:port of the listening socket. */
  origin: string;
  /**
   * Drains: stops accepting, closes idle keep-alive connections at once and every busy one after its
   * current answer (sent with `Connection: close`), and resolves when none is left. Past
   * `timeoutMs` (default 10 s) it closes what remains and says how many requests it cut.
   */
  close(options?: { timeoutMs?: number }): Promise<Drained>;
  /**
   * The drain's first step, while the server still accepts: every answer from now on closes its
   * connection (`Connection: close`), so a proxy keeping connections open stops reusing them
   * before close() ends the idle ones.
   */
  windDown(): void;
}

export interface Drained {
  /** Requests still unanswered when the timeout cut their connections. */
  cut: number;
}

// Requests Node rejects before any middleware runs (oversized headers, broken HTTP, a request
// that never finishes) still get a Problem with the common headers, never a bare status line; on a
// page site (`pages`), its HTML page.
function clientErrorAnswer(pages: Site | null) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    const [code, detail, status] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? ([
            'HEADERS_TOO_LARGE',
            'The request headers are larger than 16 KiB.',
            '431 Request Header Fields Too Large',
          ] as const)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? (['REQUEST_TIMEOUT', 'The request did not arrive in time.', '408 Request Timeout'] as const)
          : (['MALFORMED_REQUEST', 'The request is not valid HTTP/1.1.', '400 Bad Request'] as const);
    const [type, body, headers] = pages
      ? [
          'text/html; charset=utf-8',
          refusalPageHtml(pages, 'That did not work', detail),
          Object.entries(pageHeaders(true)).map(([name, value]) => `${name}: ${value}`),
        ]
      : [
          problemContentType,
          JSON.stringify(buildProblem(code, detail, `urn:developer-platform:request:${requestId}`, requestId)),
          [`X-Service-API-Version: ${apiVersion}`, 'Cache-Control: no-store'],
        ];
    socket.end(
      [
        `HTTP/1.1 ${status}`,
        `Content-Type: ${type}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-ID: ${requestId}`,
        ...headers,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  };
}

/** Listens on host:port; `pages` names the page site it serves (its refusals are then pages). */
export function listen(
  listener: RequestListener,
  host: string,
  port: number,
  pages: Site | null = null,
): Promise<RunningServer> {
  const server = createServer({
    requestTimeout: 30_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 1_000,
  });
  // Registered before the app's listener, so a drain can still ask for Connection: close on every
  // answer whose headers are not written yet.
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let keepAlive = true;
  const windDown = () => {
    keepAlive = false;
    for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
  };
  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    if (!keepAlive) response.shouldKeepAlive = false;
    response.once('close', () => {
      inFlight.delete(response);
      // Its connection may be idle now: a draining server lets it go.
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  server.on('request', listener);
  server.on('clientError', clientErrorAnswer(pages));
  const drain = (timeoutMs: number) =>
    new Promise<Drained>((done) => {
      draining = true;
      windDown();
      const deadline = setTimeout(() => {
        const cut = inFlight.size;
        server.closeAllConnections();
        done({ cut });
      }, timeoutMs);
      server.close(() => {
        clearTimeout(deadline);
        done({ cut: 0 });
      });
      server.closeIdleConnections();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        origin: `http://${shownHost}:${address.port}`,
        close: ({ timeoutMs = 10_000 } = {}) => drain(timeoutMs),
        windDown,
      });
    });
  });
}
