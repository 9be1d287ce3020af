// What the tests of the guides' samples and of the sample apps (JavaScript and Python) do alike: make
// an app and a sandbox player through the console API, as a developer does before running a sample,
// and drive a sample app's pages in Chromium as a player does (its sign-in link, the platform's
// real sign-in and consent screen, the profile, refresh, sign-out). The sample apps share their
// pages' words for this: the link, the notices, the buttons, the `display-name` and `sub` test ids.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { consoleCall, type Developer, registerDeveloper } from './console-api.ts';

export interface ProvisionedApp {
  developer: Developer;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  redirectUri: string;
  player: { username: string; password: string; displayName: string };
}

/** A developer, an app allowed both scopes with one redirect URI, and a sandbox player of theirs. */
export async function provisionApp(
  consoleOrigin: string,
  { name, redirectUri, displayName }: { name: string; redirectUri: string; displayName: string },
): Promise<ProvisionedApp> {
  const developer = await registerDeveloper(consoleOrigin);
  const api = (path: string, body: unknown) =>
    consoleCall(consoleOrigin, 'POST', path, { token: developer.token, body });
  const created = await api('/apps', {
    name,
    redirect_uris: [redirectUri],
    scopes: ['city.public.read', 'profile.basic.read'],
  });
  assert.equal(created.status, 201, created.text);
  const player = { username: `sample-${Date.now()}`, password: 'player password', displayName };
  const made = await api('/sandbox-players', {
    username: player.username,
    password: player.password,
    display_name: displayName,
  });
  assert.equal(made.status, 201, made.text);
  return {
    developer,
    clientId: created.json.app.client_id,
    clientSecret: created.json.client_secret,
    webhookSecret: created.json.app.webhook_signing_secret,
    redirectUri,
    player,
  };
}

/**
 * At the sample app on `origin`: its sign-in link, the platform's player client (sign in, Allow),
 * back at the app's home page signed in, showing the player's /me and the cities.
 */
export async function signInAtSampleApp(
  page: Page,
  origin: string,
  playerClient: string,
  player: { username: string; password: string; displayName: string },
): Promise<void> {
  await page.goto(origin);
  await page.getByRole('link', { name: 'Sign in with the Developer Platform' }).click();
  assert.equal(new URL(page.url()).origin, playerClient, 'the sign-in link leads to the platform');
  await page.getByLabel('Username').fill(player.username);
  await page.getByLabel('Password').fill(player.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();

  await page.waitForURL(`${origin}/`);
  await page.getByText('Signed in.').waitFor();
  assert.equal(await page.getByTestId('display-name').textContent(), player.displayName);
  assert.match((await page.getByTestId('sub').textContent()) ?? '', /^ps_[\w-]{32}$/);
  assert.ok((await page.getByRole('list', { name: 'Cities' }).getByRole('listitem').count()) > 0);
}

/** Refresh tokens: the rotated pair is kept and works. */
export async function refreshAtSampleApp(page: Page, displayName: string): Promise<void> {
  await page.getByRole('button', { name: 'Refresh tokens' }).click();
  await page.getByText('Refreshed: a new access token and a new refresh token.').waitFor();
  assert.equal(await page.getByTestId('display-name').textContent(), displayName, 'the new token works');
}

/** Sign out: the app revokes its refresh token and offers to sign in again. */
export async function signOutAtSampleApp(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out (revoke)' }).click();
  await page.getByText('Signed out: the tokens are revoked.').waitFor();
  await page.getByRole('link', { name: 'Sign in with the Developer Platform' }).waitFor();
}
