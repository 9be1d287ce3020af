// Defaults of `devplat try` that other commands mention too.
import { isLoopbackHttp, loopbackRedirectHosts } from '@devplat/contract';

/** http on a loopback host a redirect URI may use (contract rule 8): where `devplat try` can listen for the browser. */
export { isLoopbackHttp };

export const defaultBaseUrl = 'http://127.0.0.1:8080/developer/v1';
export const defaultRedirectUri = 'http://127.0.0.1:8976/callback';

/** http on this machine (any 127.0.0.0/8 address, [::1] or localhost): the console's and the API's defaults. */
export function isLocalHttp(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (
      url.protocol === 'http:' &&
      (loopbackRedirectHosts.includes(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname))
    );
  } catch {
    return false;
  }
}
