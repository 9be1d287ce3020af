// A rolling release from the previous release, which keeps codes and refresh tokens in the clear
// and cannot read their hashed form, loses nothing when this release writes the clear form
// (CREDENTIALS_AT_REST=clear): each release's processes read what the other's write, rotate each
// other's families and recognise each other's replays. The previous release's adapters are its own
// code, unchanged (fixtures/previous-release/); both releases share one store, as their pods share
// Redis. The second roll, to the default `hashed`, is played the same way between the two formats.
import assert from 'node:assert/strict';
import type { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { CredentialFormat } from '@devplat/config';
import { type KeyValueStore, memoryStore } from '@devplat/kv';
import { type Payload, storeAdapter, storeFamilies } from '../src/adapter.ts';
import { refreshTokenAdapter, refreshTokenId } from '../src/refresh-token-adapter.ts';
import { tokenRequestFacts } from '../src/token-request.ts';
import * as previous from './fixtures/previous-release/adapter.ts';
import { refreshTokenAdapter as previousRefreshTokenAdapter } from './fixtures/previous-release/refresh-token-adapter.ts';

// The provider's request context (Provider.ctx): the adapters learn there that a consume belongs to a
// refresh, whose next token's save then swaps the family (refresh-token-adapter.ts).
const { default: requestContext } = (await import('oidc-provider/lib/helpers/als.js' as string)) as {
  default: AsyncLocalStorage<object>;
};

/**
 * One request to the token endpoint: its steps share one context, as the provider's do, and
 * `answered` is the provider's 200, after which the request's single-use write is made
 * (provider-answers.ts; the previous release made it in the step itself).
 */
function request() {
  const ctx = { state: {}, oidc: { route: 'token' } };
  const step = <T>(work: () => Promise<T>): Promise<T> => requestContext.run(ctx, work);
  const answered = () => step(async () => void (await tokenRequestFacts(ctx).commit?.()));
  return Object.assign(step, { answered });
}

/** The steps as one request, answered. */
async function served<T>(work: () => Promise<T>): Promise<T> {
  const step = request();
  const result = await step(work);
  await step.answered();
  return result;
}

/** The two releases' adapters, and the format this one writes in. */
type Release = 'previous' | CredentialFormat;

// What a process writes: every key and value (reads name what they look for, and store nothing).
const reads = new Set(['getMany', 'members', 'delete', 'readStream', 'ping', 'ready', 'close']);

/**
 * One auth process of a release on the shared store: its adapters, and the record of its writes:
 * every call that writes (`calls`), and what those calls store (`written`: a swap's `from` is only
 * compared with the stored value, never stored).
 */
function processOf(release: Release, shared: KeyValueStore, revoked: string[]) {
  const calls: string[] = [];
  const written: string[] = [];
  const store = new Proxy(shared, {
    get(target, name: keyof KeyValueStore) {
      const method = target[name];
      if (typeof method !== 'function' || reads.has(name)) return method;
      return (...args: unknown[]) => {
        calls.push(JSON.stringify([name, ...args]));
        const [key, change, ...rest] = args as [string, { from?: string }, ...unknown[]];
        written.push(JSON.stringify(name === 'swap' ? [name, key, { ...change, from: undefined }, ...rest] : args));
        return (method as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const hooks = { grantRevoked: async (grantId: string) => void revoked.push(grantId) };
  if (release === 'previous') {
    const families = previous.storeFamilies(store, hooks);
    const Adapter = previous.storeAdapter(store, families);
    return {
      release,
      calls,
      written,
      codes: new Adapter('AuthorizationCode'),
      refreshTokens: previousRefreshTokenAdapter(store, families),
    };
  }
  const families = storeFamilies(store, hooks);
  const Adapter = storeAdapter(store, families, release);
  return {
    release,
    calls,
    written,
    codes: new Adapter('AuthorizationCode'),
    refreshTokens: refreshTokenAdapter(store, families, release),
  };
}
type Process = ReturnType<typeof processOf>;

/** Processes of the given releases beside each other on one store. */
function rollout<const R extends Release[]>(...releases: R) {
  const store = memoryStore();
  const revoked: string[] = [];
  return { store, revoked, processes: releases.map((release) => processOf(release, store, revoked)) };
}

const later = Math.floor(Date.now() / 1000) + 3600;
const newCode = () => `sva_${randomBytes(32).toString('base64url')}`;
const codePayload = (code: string, grantId: string): Payload => ({
  jti: code,
  kind: 'AuthorizationCode',
  grantId,
  clientId: 'app-1',
  scope: 'city.public.read',
  exp: later,
});
const tokenPayload = (token: string, grantId: string, rotations = 0): Payload => ({
  jti: token,
  kind: 'RefreshToken',
  grantId,
  clientId: 'app-1',
  scope: 'city.public.read',
  rotations,
  exp: later,
});

/** A family's first refresh token, saved as a code's redemption saves it (outside a rotation). */
async function newFamily(by: Process, grantId = `g${randomBytes(6).toString('hex')}`) {
  const token = refreshTokenId(grantId);
  await request()(() => by.refreshTokens.upsert(token, tokenPayload(token, grantId), 3600));
  return { grantId, token };
}

/**
 * A refresh, as the provider's refresh_token grant runs it: find the presented token (a consumed
 * one is a replay: the family is revoked), consume it, save the next. Resolves with the next token.
 */
async function refreshOn(by: Process, presented: string): Promise<string> {
  const step = request();
  const found = await step(() => by.refreshTokens.find(presented));
  if (!found) throw Object.assign(new Error('refresh token not found'), { name: 'InvalidGrant' });
  const grantId = found.grantId as string;
  if (found.consumed) {
    await step(() => by.refreshTokens.revokeByGrantId(grantId));
    throw Object.assign(new Error('refresh token replayed'), { name: 'InvalidGrant' });
  }
  assert.equal(found.jti, presented, `${by.release} reads the token's jti`);
  await step(() => by.refreshTokens.consume(presented));
  const rotation = Number(found.rotations ?? 0) + 1;
  const next = refreshTokenId(grantId, rotation);
  await step(() => by.refreshTokens.upsert(next, tokenPayload(next, grantId, rotation), 3600));
  await step.answered();
  return next;
}

/** Asserts that each process finds the token current, and each earlier token a replay. */
async function allAgree(processes: Process[], current: string, earlier: string[]) {
  for (const { release, refreshTokens } of processes) {
    const found = await refreshTokens.find(current);
    assert.equal(found?.jti, current, `${release} finds the current token`);
    assert.equal(found?.consumed, undefined, `${release} finds it unused`);
    for (const token of earlier) {
      const replay = await refreshTokens.find(token);
      assert.equal(replay?.jti, token, `${release} recognises an earlier token`);
      assert.ok(replay?.consumed, `${release} answers an earlier token as consumed: a replay`);
    }
  }
}

describe('CREDENTIALS_AT_REST=clear writes what the previous release writes', () => {
  test('the same writes, key for key and value for value, for codes and for refresh families', async () => {
    // The same credentials, played by each; only the consumed markers' clock is set aside.
    const code = newCode();
    const grantId = 'g-same';
    const tokens = [0, 1, 2].map((rotation) => refreshTokenId(grantId, rotation)) as [string, string, string];
    const play = async (release: 'previous' | 'clear') => {
      const [by] = rollout(release).processes as [Process];
      await by.codes.upsert(code, codePayload(code, grantId), 120);
      await by.codes.consume(code);
      await by.refreshTokens.upsert(tokens[0], tokenPayload(tokens[0], grantId), 3600);
      const step = request();
      await step(() => by.refreshTokens.find(tokens[0]));
      await step(() => by.refreshTokens.consume(tokens[0]));
      await step(() => by.refreshTokens.upsert(tokens[1], tokenPayload(tokens[1], grantId, 1), 3600));
      await step.answered();
      // Outside a request, a consume claims the token's marker (no provider flow does this today).
      await by.refreshTokens.consume(tokens[1]);
      await by.refreshTokens.upsert(tokens[2], tokenPayload(tokens[2], grantId, 2), 3600);
      return by.calls.map((entry) => entry.replace(/"1\d{9}(\.\d+)?"/g, '"<now>"'));
    };
    const theirs = await play('previous');
    assert.ok(theirs.some((entry) => entry.includes(`"oidc:AuthorizationCode:{${code}}"`)));
    assert.ok(theirs.some((entry) => entry.includes(`"oidc:RefreshToken:{${grantId}}","{\\"id\\":\\"${tokens[2]}\\"`)));
    assert.deepEqual(await play('clear'), theirs);
  });
});

describe('a code, across the two releases', () => {
  test('written here in the clear, it redeems once on the previous release, then is a replay here', async () => {
    const { revoked, processes } = rollout('clear', 'previous');
    const [ours, theirs] = processes as [Process, Process];
    const code = newCode();
    await ours.codes.upsert(code, codePayload(code, 'g1'), 120);
    const found = await theirs.codes.find(code);
    assert.equal(found?.jti, code);
    assert.equal(found?.grantId, 'g1');
    assert.equal(found?.consumed, undefined);
    await theirs.codes.consume(code);
    assert.ok((await ours.codes.find(code))?.consumed, 'this release sees the previous one redeemed it');
    assert.deepEqual(revoked, ['g1'], 'and presenting it again revokes its grant');
    for (const { codes } of [ours, theirs]) await assert.rejects(codes.consume(code), { name: 'InvalidGrant' });
  });

  for (const writes of ['clear', 'hashed'] as const) {
    test(`written by the previous release, it redeems once here (${writes}), then is a replay there`, async () => {
      const { revoked, processes } = rollout(writes, 'previous');
      const [ours, theirs] = processes as [Process, Process];
      const code = newCode();
      await theirs.codes.upsert(code, codePayload(code, 'g2'), 120);
      const found = await served(async () => {
        const payload = await ours.codes.find(code);
        await ours.codes.consume(code);
        return payload;
      });
      assert.equal(found?.jti, code);
      assert.equal(found?.consumed, undefined);
      assert.ok((await theirs.codes.find(code))?.consumed, 'the previous release sees it redeemed');
      assert.deepEqual(revoked, ['g2'], 'and presenting it again revokes its grant');
      for (const { codes } of [ours, theirs]) await assert.rejects(codes.consume(code), { name: 'InvalidGrant' });
    });
  }

  for (const [first, second] of [
    ['clear', 'previous'],
    ['previous', 'clear'],
    ['clear', 'hashed'],
    ['hashed', 'clear'],
  ] as const) {
    test(`loaded by a ${first} and a ${second} process at once, exactly one redeems it`, async () => {
      const { revoked, processes } = rollout(first, second);
      const [one, other] = processes as [Process, Process];
      const code = newCode();
      await one.codes.upsert(code, codePayload(code, 'g3'), 120);
      const [a, b] = [request(), request()];
      assert.ok(await a(() => one.codes.find(code)));
      assert.ok(await b(() => other.codes.find(code)));
      await a(() => one.codes.consume(code));
      await a.answered();
      await assert.rejects(b(() => other.codes.consume(code)).then(b.answered), { name: 'InvalidGrant' });
      assert.ok(revoked.includes('g3'), 'the loser revokes the grant');
    });
  }
});

describe('a refresh family, across the two releases', () => {
  // The first roll (previous and clear side by side), the second (clear and hashed), and its way back.
  for (const [first, second] of [
    ['previous', 'clear'],
    ['clear', 'previous'],
    ['clear', 'hashed'],
    ['hashed', 'clear'],
  ] as const) {
    test(`created on a ${first} process, rotated alternately with a ${second} one: alive, and every replay recognised by both`, async () => {
      const { store, revoked, processes } = rollout(first, second);
      let { grantId, token } = await newFamily(processes[0] as Process);
      const earlier: string[] = [];
      for (let rotation = 1; rotation <= 6; rotation++) {
        const next = await refreshOn(processes[rotation % 2] as Process, token);
        earlier.push(token);
        token = next;
        await allAgree(processes, token, earlier);
      }
      assert.deepEqual(await store.members(`oidc:grant:{${grantId}}`), [`oidc:RefreshToken:{${grantId}}`]);
      assert.deepEqual(revoked, []);

      // A replay of a rotated token, on either, revokes the family.
      await assert.rejects(refreshOn(processes[1] as Process, earlier[2] as string), { name: 'InvalidGrant' });
      assert.deepEqual(revoked, [grantId]);
      for (const { refreshTokens } of processes) assert.equal(await refreshTokens.find(token), undefined);
      ({ grantId, token } = await newFamily(processes[1] as Process));
      const rotated = await refreshOn(processes[0] as Process, token);
      await assert.rejects(refreshOn(processes[0] as Process, token), { name: 'InvalidGrant' });
      assert.deepEqual(revoked.at(-1), grantId);
      await assert.rejects(refreshOn(processes[1] as Process, rotated), { name: 'InvalidGrant' });
    });
  }

  for (const [first, second] of [
    ['previous', 'clear'],
    ['clear', 'previous'],
    ['clear', 'hashed'],
    ['hashed', 'clear'],
  ] as const) {
    test(`loaded by a ${first} and a ${second} process at once, exactly one rotates it`, async () => {
      const { revoked, processes } = rollout(first, second);
      const [one, other] = processes as [Process, Process];
      const { grantId, token } = await newFamily(one);
      const [a, b] = [request(), request()];
      assert.ok(await a(() => one.refreshTokens.find(token)));
      assert.ok(await b(() => other.refreshTokens.find(token)));
      await a(() => one.refreshTokens.consume(token));
      const next = refreshTokenId(grantId, 1);
      await a(() => one.refreshTokens.upsert(next, tokenPayload(next, grantId, 1), 3600));
      await a.answered();
      await b(() => other.refreshTokens.consume(token));
      const lost = refreshTokenId(grantId, 1);
      await assert.rejects(
        b(() => other.refreshTokens.upsert(lost, tokenPayload(lost, grantId, 1), 3600)).then(b.answered),
        { name: 'InvalidGrant' },
      );
      assert.deepEqual(revoked, [grantId], 'the loser revokes the family');
    });
  }

  test('hashed, as the previous release cannot read it: why the first roll writes in the clear', async () => {
    const { processes } = rollout('hashed', 'previous');
    const [ours, theirs] = processes as [Process, Process];
    const { token } = await newFamily(theirs);
    const rotated = await refreshOn(ours, token);
    assert.equal(await theirs.refreshTokens.find(rotated), undefined, 'the previous release finds no such token');
    const code = newCode();
    await ours.codes.upsert(code, codePayload(code, 'g4'), 120);
    assert.equal(await theirs.codes.find(code), undefined, 'nor such a code');
  });
});

describe('CREDENTIALS_AT_REST=hashed writes no credential, even of entries the previous release wrote', () => {
  /** Asserts that nothing the process wrote holds a credential, or its random part. */
  const holdsNone = (by: Process, credentials: string[]) => {
    for (const credential of credentials) {
      const secret = credential.slice(credential.lastIndexOf('.') + 1).replace(/^sva_/, '');
      const found = by.written.find((entry) => entry.includes(credential) || entry.includes(secret));
      assert.equal(found, undefined, `${by.release} wrote ${credential}`);
    }
  };

  test('codes and families, written, redeemed, rotated and consumed', async () => {
    const { processes } = rollout('hashed', 'previous', 'clear');
    const [ours, theirs, clear] = processes as [Process, Process, Process];
    const credentials: string[] = [];
    const theirCodes: string[] = [];
    for (const writer of [ours, theirs]) {
      const code = newCode();
      (writer === ours ? credentials : theirCodes).push(code);
      await writer.codes.upsert(code, codePayload(code, 'g5'), 120);
      await served(async () => {
        assert.ok(await ours.codes.find(code));
        await ours.codes.consume(code);
      });
      let { token } = await newFamily(writer);
      credentials.push(token);
      for (let rotation = 1; rotation <= 3; rotation++) {
        token = await refreshOn(rotation === 2 ? clear : ours, token);
        credentials.push(token);
      }
      await ours.refreshTokens.consume(token);
    }
    assert.equal(ours.written.length, 10, 'a code and a family of each release, rotated, consumed');
    holdsNone(ours, credentials);
    // A code the previous release stored in the clear is claimed under that name, as that release
    // claims it (exactly one of the two redeems it): the one name holding a credential, already there.
    const [theirCode] = theirCodes as [string];
    assert.deepEqual(
      ours.written.filter((entry) => entry.includes(theirCode.slice(4))).map((entry) => JSON.parse(entry)[0]),
      [`oidc:AuthorizationCode:{${theirCode}}:consumed`],
    );
    assert.ok(
      clear.written.some((entry) => credentials.some((credential) => entry.includes(credential))),
      'where the clear process wrote them',
    );
  });
});
