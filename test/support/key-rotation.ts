// Step 2 of a signing-key rotation as the tests wait for it: every api holds the published key. An
// api refetches the key set when a token names a kid it lacks, at most once per cooldown (30 s,
// services/api/src/bearer.ts), so this polls for that instead of sleeping the cooldown out.
import type { SigningKey } from '@devplat/config';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { call } from './http.ts';
import { eventually } from './webhook-receiver.ts';

/** A token the platform issued, signed with `key` instead: an api accepts it once it holds that key. */
async function signedWith(token: string, key: SigningKey): Promise<string> {
  return new SignJWT(decodeJwt(token))
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
    .sign(await importJWK({ ...key, alg: 'EdDSA' }));
}

/** Resolves once the api at each of `bases` accepts `token` signed with `key` (within its cooldown and a margin). */
export async function untilApisHold(key: SigningKey, bases: string[], token: string): Promise<void> {
  const probe = { headers: { authorization: `Bearer ${await signedWith(token, key)}` } };
  for (const base of bases) {
    let last = '';
    await eventually(async () => {
      const answer = await call(base, '/cities?limit=100', probe);
      last = `${answer.status} ${answer.text}`;
      return answer.status === 200;
    }, 35_000).catch((error: Error) => {
      throw new Error(`${base} never accepted a token signed with ${key.kid}; last answer: ${last}`, { cause: error });
    });
  }
}
