// Defaults of `devplat try` that other commands mention too.

export const defaultBaseUrl = 'http://127.0.0.1:8080/developer/v1';
export const defaultRedirectUri = 'http://127.0.0.1:8976/callback';

const loopbackHosts = ['127.0.0.1', '[::1]', 'localhost'];

/** http on a loopback host: where `devplat try` can listen for the browser. */
export function isLoopbackHttp(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && loopbackHosts.includes(url.hostname);
  } catch {
    return false;
  }
}
