// The app's redirect URI, served for one authorization: the first request on its path is the
// player's browser coming back from the consent screen. It gets a small page saying the terminal
// takes over; the query goes to the caller.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Html, html, pageHeaders, siteLayout } from '@devplat/http/html';
import { failure } from './errors.ts';

export interface CallbackServer {
  /** The full URL of the first request that reached the callback path. */
  received: Promise<URL>;
  close(): Promise<void>;
}

const layout = siteLayout({ width: '36rem' });
const page = (title: string, message: string) => layout({ title, main: html`<h1>${title}</h1><p>${message}</p>` });
const headers = { ...pageHeaders(true), 'Content-Type': 'text/html; charset=utf-8', Connection: 'close' };

function send(response: ServerResponse, status: number, body: Html) {
  response.writeHead(status, headers);
  response.end(body.toString());
}

/** The addresses to listen on for a loopback redirect URI's host. */
function listenHosts(hostname: string): string[] {
  if (hostname === '[::1]') return ['::1'];
  if (hostname === 'localhost') return ['127.0.0.1', '::1'];
  return [hostname];
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function listenForCallback(redirectUri: URL): Promise<CallbackServer> {
  let deliver: (url: URL) => void = () => {};
  const received = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  let answered = false;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', redirectUri);
    if (url.pathname !== redirectUri.pathname) return send(response, 404, page('Not found', 'Nothing here.'));
    if (request.method !== 'GET') return send(response, 405, page('Method not allowed', 'Only GET is answered.'));
    if (answered) {
      return send(
        response,
        409,
        page('Already answered', 'devplat already received an answer. You can close this tab.'),
      );
    }
    answered = true;
    const refused = url.searchParams.has('error');
    send(
      response,
      200,
      refused
        ? page('Access not granted', 'You can close this tab: the terminal says what happened.')
        : page('You can close this tab', 'devplat received the answer and continues in the terminal.'),
    );
    deliver(url);
  };

  const port = Number(redirectUri.port || 80);
  const servers: Server[] = [];
  const hosts = listenHosts(redirectUri.hostname);
  for (const [index, host] of hosts.entries()) {
    const server = createServer(handle);
    try {
      await listen(server, host, port);
      servers.push(server);
    } catch (error) {
      // localhost's second address (::1) may not exist on this machine; the first one must.
      if (index > 0) continue;
      await Promise.all(servers.map((started) => closeServer(started)));
      const code = (error as { code?: string }).code;
      const why =
        code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'permission denied' : (code ?? 'it failed');
      throw failure(
        'CANNOT_LISTEN',
        'Cannot listen for the redirect',
        `Cannot listen on ${host}:${port} for ${redirectUri.href} (${why}).`,
        ['Stop what uses that port, or pass another --redirect-uri that is registered for the app.'],
      );
    }
  }
  return { received, close: () => Promise.all(servers.map(closeServer)).then(() => undefined) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
