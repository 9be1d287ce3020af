// devplat try opens the authorization address in the developer's browser when there is one: the
// program named by BROWSER (as many command-line tools honour it), else the desktop's opener
// (`open` on macOS, `xdg-open` under X11 or Wayland, the URL handler on Windows). On a server with
// no display, nothing is opened and the address is only printed.
import { spawn } from 'node:child_process';

export interface Opener {
  command: string;
  args: string[];
}

/** How to open `url` here, or null where no browser can be. */
export function browserOpener(url: string, env: NodeJS.ProcessEnv, platform = process.platform): Opener | null {
  const chosen = env.BROWSER?.trim();
  if (chosen) return { command: chosen, args: [url] };
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return { command: 'xdg-open', args: [url] };
  return null;
}

/** Starts the opener, detached; resolves false when it could not be started or failed at once. */
export function openBrowser(opener: Opener): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(opener.command, opener.args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
