import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { apiVersion } from '@devplat/contract';
import { newRequestId } from './headers.ts';
import { buildProblem, problemContentType } from './problem.ts';

export interface RunningServer {
  server: Server;
  /** http://host:port of the listening socket. */
  origin: string;
  close(): Promise<void>;
}

// Requests Node rejects before any middleware runs (oversized headers, broken HTTP, a request
// that never finishes) still get a Problem with the common headers, never a bare status line.
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
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
  const body = JSON.stringify(buildProblem(code, detail, `urn:developer-platform:request:${requestId}`, requestId));
  socket.end(
    [
      `HTTP/1.1 ${status}`,
      `Content-Type: ${problemContentType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-ID: ${requestId}`,
      `X-Service-API-Version: ${apiVersion}`,
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

export function listen(listener: RequestListener, host: string, port: number): Promise<RunningServer> {
  const server = createServer(
    { requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 },
    listener,
  );
  server.on('clientError', answerClientError);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        origin: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
