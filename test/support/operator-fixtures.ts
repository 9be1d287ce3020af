// What the operator tests (admin command and admin API) stop: an app of a developer, with a
// webhook, that a sandbox player has allowed over HTTP, so it holds the player's user tokens.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { allowOverHttp } from './connected-apps.ts';
import { consoleCall, type Developer } from './console-api.ts';
import { eventually, verifyWebhook, type WebhookReceiver } from './webhook-receiver.ts';

export type WebhookEvent = { type: string; data: Record<string, unknown> };

export interface ConnectedAppSetting {
  /** The platform's API/OAuth origin and its console's. */
  base: string;
  console: string;
  developer: Developer;
  /** Serves every app of the test: an app's events are those its signing secret signed. */
  receiver: WebhookReceiver;
}

/** A new app of the developer with a webhook, a new player who allowed it, and its consent.granted. */
export async function connectedApp({ base, console, developer, receiver }: ConnectedAppSetting, name: string) {
  const developerApi = (path: string, body: unknown) =>
    consoleCall(console, 'POST', path, { token: developer.token, body });
  const created = await developerApi('/apps', {
    name,
    redirect_uris: ['http://127.0.0.1:9/callback'],
    scopes: ['city.public.read', 'profile.basic.read'],
    webhook_url: receiver.url,
  });
  assert.equal(created.status, 201, created.text);
  const app = {
    clientId: created.json.app.client_id as string,
    clientSecret: created.json.client_secret as string,
    signingSecret: created.json.app.webhook_signing_secret as string,
    app: { redirectUris: created.json.app.redirect_uris as string[] },
  };
  const player = { username: `player-${randomBytes(4).toString('hex')}`, password: 'player password' };
  assert.equal((await developerApi('/sandbox-players', { ...player, display_name: 'Pat' })).status, 201);
  const user = await allowOverHttp(base, app, player);
  const events = () =>
    receiver.received.flatMap((received) => {
      try {
        return [verifyWebhook(app.signingSecret, received as never) as WebhookEvent];
      } catch {
        return [];
      }
    });
  const granted = await eventually(() => events().find((event) => event.type === 'consent.granted'));
  return { app, player, user, events, granted };
}
