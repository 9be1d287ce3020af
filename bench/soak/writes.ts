// The acknowledged-writes loop: on a second app, over and over, an operator suspends it (admin
// API) and lifts the suspension, and its developer rotates its secret (console API: a new one,
// then the old one revoked). Each write is retried until acknowledged; after each, probes check it
// is in force: while suspended, and once a secret is revoked, client credentials (and /cities with
// a token issued before) must be refused, whatever fault came between (a 2xx there is an
// acknowledged write lost: checker.ts). After the suspension is lifted, and with the new secret,
// they must work again. After each fault, recheck() probes the app's acknowledged state and every
// secret revoked since a given time once more.
import { basicAuth } from '@devplat/test/oauth';
import { answered, type Sent, send } from './client.ts';
import type { Entry, History, Operation } from './history.ts';
import type { LoadTarget } from './load.ts';

export function writesLoop(
  history: History,
  target: Pick<LoadTarget, 'base' | 'console' | 'admin' | 'writes' | 'developerToken'>,
  { running, pace }: { running: () => boolean; pace: (ms: number) => number },
): { done: Promise<void>; recheck(since: number): Promise<void> } {
  const { clientId } = target.writes;
  /** What the app's last acknowledged admin write made it (unknown while one is under way). */
  let state: { suspended: boolean; acknowledged?: { write: string; entry: Entry } } | null = { suspended: false };
  const revoked: { secret: string; token?: string; acknowledged: { write: string; entry: Entry } }[] = [];
  // The loop's steps and a recheck take turns, so that a recheck sees an acknowledged state.
  let turn = Promise.resolve();
  const exclusive = <T>(step: () => Promise<T>): Promise<T> => {
    const result = turn.then(step);
    turn = result.then(
      () => {},
      () => {},
    );
    return result;
  };
  let secret = { id: target.writes.secretId, value: target.writes.clientSecret };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, pace(ms)));
  /** Retried until acknowledged (or the load ends): a write whose answer was a 503 or none is sent again. */
  const untilAcknowledged = (make: (retry: boolean) => Promise<Sent>) => {
    let retry = false;
    return answered(
      () =>
        make(retry).finally(() => {
          retry = true;
        }),
      running,
      1_000,
    );
  };
  const admin = (action: 'suspend' | 'unsuspend') =>
    send(history, {
      op: action,
      url: `${target.admin.url}/apps/${clientId}/${action}`,
      init: {
        method: 'POST',
        headers: { authorization: `Bearer ${target.admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'fault soak' }),
      },
      expect: [200],
    });
  const developer = (op: Operation, method: string, path: string, expect: number[]) =>
    send(history, {
      op,
      url: `${target.console}/api/apps/${clientId}${path}`,
      init: { method, headers: { authorization: `Bearer ${target.developerToken}` } },
      expect,
    });
  /** Client credentials with `clientSecret`, then /cities with the token (or with `token`, when given). */
  const probe = async (
    clientSecret: string,
    expect: number,
    acknowledged?: { write: string; entry: Entry },
    token?: string,
  ): Promise<string | undefined> => {
    const op: Operation = acknowledged ? 'refused_app' : 'client_credentials';
    const because = acknowledged && { write: acknowledged.write, seq: acknowledged.entry.seq };
    const issued = await send(history, {
      op,
      url: `${target.base}/oauth/token`,
      init: {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(clientId, clientSecret),
        },
        body: 'grant_type=client_credentials',
      },
      expect: [expect],
      acknowledged: because,
      contractPath: '/oauth/token',
    });
    const presented = token ?? issued.json?.access_token;
    if (presented) {
      await send(history, {
        op: acknowledged ? 'refused_app' : 'cities',
        url: `${target.base}/cities?limit=100`,
        init: { headers: { authorization: `Bearer ${presented}` } },
        expect: [expect],
        acknowledged: because,
        contractPath: '/cities',
      });
    }
    return issued.json?.access_token;
  };

  /** A new secret beside the current one; after an unknown outcome, first revokes any other it may have made. */
  const addSecret = async (): Promise<{ id: string; value: string } | null> => {
    const added = await untilAcknowledged(async (retry) => {
      if (retry) await revokeOthers();
      return developer('add_secret', 'POST', '/secrets', [201]);
    });
    return added.entry.status === 201 ? { id: added.json.secret_id, value: added.json.client_secret } : null;
  };
  const revokeOthers = async () => {
    const app = await developer('console', 'GET', '', [200]);
    const others = ((app.json?.secrets ?? []) as { secret_id: string; status: string }[]).filter(
      (each) => each.secret_id !== secret.id && each.status === 'active',
    );
    for (const other of others) await developer('revoke_secret', 'DELETE', `/secrets/${other.secret_id}`, [204]);
  };

  /** Sets the app's suspension; false when never acknowledged (the load ended first). */
  const setSuspension = (suspend: boolean, before?: string) =>
    exclusive(async () => {
      state = null;
      const sent = await untilAcknowledged(() => admin(suspend ? 'suspend' : 'unsuspend'));
      if (sent.entry.status !== 200) return false;
      const acknowledged = { write: suspend ? 'the suspension' : 'the end of the suspension', entry: sent.entry };
      state = { suspended: suspend, acknowledged };
      if (suspend) await probe(secret.value, 401, acknowledged, before);
      return true;
    });

  const done = (async () => {
    while (running()) {
      const before = await probe(secret.value, 200);
      await sleep(1_500);
      if (!(await setSuspension(true, before))) return;
      await sleep(1_500);
      if (!(await setSuspension(false))) return;
      await sleep(1_500);
      const next = await exclusive(addSecret);
      if (!next) return;
      const old = secret;
      secret = next;
      const issuedBefore = await probe(old.value, 200);
      await probe(next.value, 200);
      await sleep(1_500);
      await exclusive(async () => {
        // Revoking a revoked secret answers 204 again: a retry after an unknown outcome is safe.
        const sent = await untilAcknowledged(() => developer('revoke_secret', 'DELETE', `/secrets/${old.id}`, [204]));
        if (sent.entry.status !== 204) return;
        const acknowledged = { write: 'the revocation of a secret', entry: sent.entry };
        revoked.push({ secret: old.value, token: issuedBefore, acknowledged });
        await probe(old.value, 401, acknowledged, issuedBefore);
      });
      await sleep(1_500);
    }
  })();

  return {
    done,
    recheck: (since) =>
      exclusive(async () => {
        for (const each of revoked.filter(({ acknowledged }) => acknowledged.entry.end >= since)) {
          await probe(each.secret, 401, each.acknowledged, each.token);
        }
        if (state?.suspended) await probe(secret.value, 401, state.acknowledged);
        else if (state) await probe(secret.value, 200);
      }),
  };
}
