// admin rotation-procedure: the signing-key rotation, step by step, with the waits this build's
// settings call for (docs/operating.md walks the same steps; test/operating/operable.test.ts walks
// them across two auth processes and an api).
import { limits } from '@devplat/contract';
import type { Command } from './command.ts';

// The api's remote key set (services/api/src/bearer.ts, remoteKeys): fetched again on a token
// naming a key it does not hold at most once per cooldown, and every cache lifetime regardless.
const jwksCooldownSeconds = 30;
const jwksCacheMinutes = 10;

export function rotationProcedure(): string {
  const lifetime = limits.accessTokenSeconds;
  return `Signing-key rotation, with no 401 at any step

SIGNING_KEYS is a JSON Web Key Set of private Ed25519 keys. The FIRST key signs every access token;
all of them are published at the auth service's internal JWKS (AUTH_INTERNAL_URL/jwks.json), which
every api replica fetches to verify tokens. (The public metadata document names no jwks_uri: only
the api verifies the platform's tokens.) "old" below is the key signing today.

1. Generate a new key:
     npm run -s admin -- generate-signing-key
   It prints a private key: put it straight into your secret store, never into a log.

2. Publish: deploy SIGNING_KEYS = {"keys":[old, new]} to every auth replica. The old key is still
   first, so it still signs; both are published. Then wait until every api replica can see the new
   key. An api fetches the key set again when a token names a key it does not hold, at most once
   per ${jwksCooldownSeconds} s (its cooldown), and refreshes it every ${jwksCacheMinutes} minutes regardless
   (services/api/src/bearer.ts). So wait at least ${jwksCooldownSeconds} s after the last auth replica took the
   new set; after ${jwksCacheMinutes} minutes every api holds the new key even if no token asked for it.

3. Sign: deploy SIGNING_KEYS = {"keys":[new, old]} to every auth replica. New access tokens are
   signed with the new key; those signed with the old key still verify.

4. Retire: once ${lifetime} s (the access-token lifetime) have passed since step 3 finished on every
   replica, plus the clock skew between your hosts (${Math.ceil(lifetime / 60) + 1} minutes is ample), deploy
   SIGNING_KEYS = {"keys":[new]}. Every token the old key signed has expired by then. Only access
   tokens are signed (JWTs); refresh tokens and authorization codes are opaque handles kept in
   Redis, not signed, so they live on across the rotation and need no wait.

Going back: during step 2, deploy {"keys":[old]}; during step 3 or before step 4, deploy
{"keys":[old, new]} (old signs again, both still verify). Never drop a key that signed an access
token less than ${lifetime} s ago, and never put a key first before step 2's wait is over: either
answers 401 to tokens that should work.
`;
}

export const rotationProcedureCommand: Command = {
  path: ['rotation-procedure'],
  summary: 'Print the signing-key rotation procedure, step by step',
  description: ['Prints the steps and the waits between them; changes nothing.'],
  args: [],
  options: [],
  async run({ io }) {
    io.out(rotationProcedure());
  },
};
