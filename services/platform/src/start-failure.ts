// Why `npm start` could not start, in words a newcomer can act on.
import { type Config, listenHost } from '@devplat/config';

/**
 * The loopback addresses other than 127.0.0.1 the platform listens on: by default the player
 * client's and the console's, which have addresses of their own so that their cookies never reach
 * an app's loopback redirect URI (docs/oauth.md). Never replaced by 127.0.0.1 when missing.
 */
export function extraLoopbackAddresses(config: Config): string[] {
  const urls = [config.baseUrl, config.playerClientUrl, config.authInternalUrl, config.mockBaseUrl, config.consoleUrl];
  const hosts = urls
    .map((url) => listenHost(config, url))
    .filter((host) => host.startsWith('127.') && host !== '127.0.0.1');
  return [...new Set(hosts)];
}

/** The one message `npm start` prints before it exits, for an error from startPlatform. */
export function startFailureMessage(error: unknown, config: Config): string {
  const { code, address, message } = error as NodeJS.ErrnoException & { address?: string };
  if (code === 'EADDRINUSE') return `a port is already in use (${message}); stop the other process or set BASE_URL`;
  const missing = extraLoopbackAddresses(config);
  if (code === 'EADDRNOTAVAIL' && address && missing.includes(address)) {
    return [
      `${address} is not an address of this machine (${message}).`,
      'The player client and the console listen on loopback addresses of their own, so that their cookies',
      'never reach an app on 127.0.0.1 (docs/oauth.md). Add them once, then run npm start again:',
      `  macOS:  ${missing.map((host) => `sudo ifconfig lo0 alias ${host} up`).join(' && ')}`,
      `  Linux:  ${missing.map((host) => `sudo ip addr add ${host}/8 dev lo`).join(' && ')}`,
      'Or give them host names of your own with PLAYER_CLIENT_URL and CONSOLE_URL (docs/configuration.md).',
    ].join('\n');
  }
  return message ?? String(error);
}
