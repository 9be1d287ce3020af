// The console's sandbox players page: the list a page at a time and the form to make one, in the
// shared layout (pages.ts).
import type { PlayerView } from '@devplat/contract';
import { type Html, hiddenField, html } from '@devplat/http';
import { action, type Frame, field, layout, table } from './pages.ts';
import { timeElement } from './time.ts';

export interface PlayersPlace {
  cursor?: string | undefined;
  limit?: string | undefined;
}

/** The query of a place in the players list ("" for the first page at the default size). */
export function playersPlaceQuery({ cursor, limit }: PlayersPlace): string {
  const query = new URLSearchParams({ ...(limit && { limit }), ...(cursor && { cursor }) }).toString();
  return query ? `?${query}` : '';
}

/**
 * One page of the players, oldest first; "Next page" carries the cursor (and the page size), and
 * each Disable or Enable comes back to the page it was pressed on.
 */
export function playersPage(
  frame: Frame,
  csrf: string,
  { players, nextCursor }: { players: PlayerView[]; nextCursor: string | null },
  place: PlayersPlace = {},
  values: { username?: string; display_name?: string } = {},
): Html {
  const here = playersPlaceQuery(place);
  const rows = players.map(
    (player) =>
      html`<tr><td>${player.username}</td><td>${player.display_name === null ? html`<small>none chosen</small>` : player.display_name}</td><td>${player.status}</td><td>${timeElement(player.created_at)}</td>
<td>${
        player.status === 'active'
          ? action(
              `/players/${player.id}/disable${here}`,
              csrf,
              'Disable',
              html`aria-label="Disable ${player.username}"`,
            )
          : action(`/players/${player.id}/enable${here}`, csrf, 'Enable', html`aria-label="Enable ${player.username}"`)
      }</td></tr>`,
  );
  // One value: the template refuses an interpolation right after "=" (an unquoted attribute).
  const nextHref = nextCursor && `/players${playersPlaceQuery({ limit: place.limit, cursor: nextCursor })}`;
  const next = nextHref && html`<a href="${nextHref}" rel="next">Next page</a>`;
  const first = place.cursor !== undefined && html`<a href="/players">First page</a>`;
  const firstPage = place.cursor === undefined;
  return layout(
    frame,
    html`<h1>Sandbox players</h1>
<p>Synthetic players for signing in on the player client while you test the consent flow. They are never real players.</p>
<p>A disabled player's tokens answer <code>403 ACCESS_DENIED</code> from their next call, and they cannot sign in; their consents stand.</p>
<p>Oldest first, a page at a time: a new player is on the last page.</p>
${table('Sandbox players', ['Username', 'Display name', 'Status', 'Created', ''], rows, html`<p>${firstPage ? 'No sandbox players yet.' : 'No more sandbox players.'}</p>`)}
${(next || first) && html`<nav aria-label="Player pages"><p>${first} ${next}</p></nav>`}
<h2>Create a sandbox player</h2>
<form method="post" action="/players">${hiddenField('csrf', csrf)}
${field('username', 'Username', 'text', values.username, html`required autocomplete="off"`)}
${field('password', 'Password', 'password', '', html`required minlength="8" autocomplete="new-password"`)}
${field('display_name', 'Display name', 'text', values.display_name, html`maxlength="64"`)}
<small>Optional: the name GET /me answers; leave empty for none.</small><br>
<button type="submit">Create player</button></form>`,
  );
}

/** A page with one message (a refusal, a failure, a switched-off console) and where to go next. */
