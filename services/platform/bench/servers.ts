// The two servers of the token benchmark, each in its own process so the load generator does
// not share their event loop. Prints one JSON line: where to send the request and with what.
//   node services/auth/bench/servers.ts platform   the whole platform, a sandbox app in it
//   node services/auth/bench/servers.ts bare       a bare Koa route signing an equal Ed25519 JWT
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@devplat/apps';
import { generateSigningKey, loadConfig } from '@devplat/config';
import { listen, readForm } from '@devplat/http';
import { createTestDatabase } from '@devplat/test/database';
import { importJWK, SignJWT } from 'jose';
import Koa from 'koa';
import { startPlatform } from '../src/start.ts';

const mode = process.argv[2];
const form = 'grant_type=client_credentials';

async function platform() {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'devplat-bench-')),
    BASE_URL: 'http://127.0.0.1:0/developer/v1',
    PLAYER_CLIENT_URL: 'http://127.0.0.1:0',
    AUTH_INTERNAL_URL: 'http://127.0.0.1:0',
  });
  // A fresh database of its own (on DATABASE_URL's server, or an in-memory PGlite), dropped on exit.
  const database = await createTestDatabase({ seed: false });
  const running = await startPlatform(config, { database });
  process.once('SIGTERM', async () => {
    await running.close();
    await database.drop();
    process.exit(0);
  });
  const prisma = running.database.prisma;
  const account = await prisma.account.create({
    data: { email: `bench-${Date.now()}@developer.test`, passwordHash: 'unused', displayName: 'Bench', kind: 'full' },
  });
  const { app, clientSecret } = await createApp(prisma, {
    accountId: account.id,
    name: 'Bench',
    redirectUris: [],
    scopes: ['city.public.read'],
  });
  return {
    url: `${running.urls['Public API']}/oauth/token`,
    authorization: `Basic ${Buffer.from(`${app.clientId}:${clientSecret}`).toString('base64')}`,
    backend: `${running.database.kind}${config.redisUrl ? ' + Redis' : ''}`,
  };
}

async function bare() {
  const key = generateSigningKey();
  const privateKey = await importJWK({ ...key, alg: 'EdDSA' }, 'EdDSA');
  const app = new Koa();
  app.use(async (ctx) => {
    await readForm(ctx);
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({
      scope: 'city.public.read',
      client_id: 'svc_bench',
      env: 'sandbox',
      csid: 'x',
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
      .setSubject('svc_bench')
      .setIssuer('http://127.0.0.1/developer/v1')
      .setAudience('http://127.0.0.1/developer/v1')
      .setJti(crypto.randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope: 'city.public.read' };
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return { url: `${server.origin}/token`, authorization: 'Basic eDp5', backend: 'none' };
}

const target = mode === 'platform' ? await platform() : mode === 'bare' ? await bare() : null;
if (!target) {
  process.stderr.write('usage: servers.ts platform|bare\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ ...target, body: form })}\n`);
