// npm run sample: the sample app against a running platform (npm start), in one command. The first
// run makes what it needs through the console API (a developer account, the app with this app's
// callback, a sandbox player to sign in as) and keeps it in .data/sample-app.json; every run then
// starts the app and `devplat listen`, which brings the app's consent webhooks to its /webhooks.
//   DEVPLAT_CONSOLE_URL (http://127.0.0.3:8082), BASE_URL (http://127.0.0.1:8080/developer/v1),
//   SAMPLE_PORT (3000), SAMPLE_DATA (.data/sample-app.json)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildSampleApp } from './app.ts';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const consoleUrl = process.env.DEVPLAT_CONSOLE_URL ?? 'http://127.0.0.3:8082';
const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:8080/developer/v1';
const port = Number(process.env.SAMPLE_PORT ?? 3000);
const dataFile = process.env.SAMPLE_DATA ?? join(repoRoot, '.data/sample-app.json');
const origin = `http://127.0.0.1:${port}`;

interface Kept {
  email: string;
  password: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  player: { username: string; password: string };
}

async function consoleApi(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${consoleUrl}/api${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((error: Error) => {
    throw new Error(`cannot reach the console at ${consoleUrl} (${error.message}): is npm start running?`);
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const secret = () => randomBytes(12).toString('base64url');

/** What the sample needs on the platform, made once and kept. */
async function provision(): Promise<{ kept: Kept; sessionToken: string }> {
  if (existsSync(dataFile)) {
    const kept = JSON.parse(readFileSync(dataFile, 'utf8')) as Kept;
    const { token } = await consoleApi('POST', '/sessions', { email: kept.email, password: kept.password });
    return { kept, sessionToken: token };
  }
  const email = `sample-${secret()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}@example.test`;
  const password = secret();
  await consoleApi('POST', '/accounts', { email, password, display_name: 'Sample app developer' });
  const { token } = await consoleApi('POST', '/sessions', { email, password });
  const created = await consoleApi(
    'POST',
    '/apps',
    { name: 'Sample app', redirect_uris: [`${origin}/callback`], scopes: ['city.public.read', 'profile.basic.read'] },
    token,
  );
  const player = { username: `sample-${randomBytes(3).toString('hex')}`, password: secret() };
  await consoleApi('POST', '/sandbox-players', { ...player, display_name: 'Sam Sample' }, token);
  const kept: Kept = {
    email,
    password,
    clientId: created.app.client_id,
    clientSecret: created.client_secret,
    webhookSecret: created.app.webhook_signing_secret,
    player,
  };
  mkdirSync(dirname(dataFile), { recursive: true });
  writeFileSync(dataFile, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  return { kept, sessionToken: token };
}

const { kept, sessionToken } = await provision();
const app = await buildSampleApp({
  baseUrl,
  clientId: kept.clientId,
  clientSecret: kept.clientSecret,
  redirectUri: `${origin}/callback`,
  webhookSecret: kept.webhookSecret,
});
const server = app.listen(port, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

// The app's consent webhooks, on this machine: devplat listen forwards them to /webhooks.
const listen = spawn(
  process.execPath,
  [join(repoRoot, 'cli/src/main.ts'), 'listen', kept.clientId, '--forward-to', `${origin}/webhooks`],
  {
    env: { ...process.env, DEVPLAT_TOKEN: sessionToken, DEVPLAT_CONSOLE_URL: consoleUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
for (const stream of [listen.stdout, listen.stderr]) {
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().trimEnd().split('\n')) process.stdout.write(`[listen] ${line}\n`);
  });
}

process.stdout.write(
  `Sample app at ${origin} (app ${kept.clientId})\n` +
    `Sign in there as the sandbox player ${kept.player.username}, password ${kept.player.password}\n` +
    'Press Ctrl-C to stop.\n',
);
const stop = () => {
  listen.kill('SIGINT');
  server.close();
  server.closeAllConnections();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
