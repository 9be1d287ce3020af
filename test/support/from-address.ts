// HTTP requests from a chosen loopback address (Linux answers on all of 127.0.0.0/8), so a test can
// be several clients at once: the sign-in throttle counts per client address.
import { request } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function fromAddress(localAddress: string) {
  return (
    url: string,
    { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const outgoing = request(url, { method, headers, localAddress }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
}
