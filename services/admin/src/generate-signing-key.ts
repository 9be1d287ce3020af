// admin generate-signing-key: a new private Ed25519 JWK for SIGNING_KEYS, made the way the
// embedded default makes its own (kid = RFC 7638 thumbprint).
import { generateSigningKey } from '@devplat/config';
import type { Command } from './command.ts';

export const generateSigningKeyCommand: Command = {
  path: ['generate-signing-key'],
  summary: 'Print a new private Ed25519 signing key (a JWK) for SIGNING_KEYS',
  description: [
    `Prints one private Ed25519 JWK as JSON on one line: kty OKP, crv Ed25519, kid (its RFC 7638
thumbprint), x and d. With --jwks, a whole key set {"keys":[...]} holding the new key, ready to be
SIGNING_KEYS on its own. The output is a private key: send it straight to your secret store or a
file only you can read (SIGNING_KEYS_FILE), never to a log. "admin rotation-procedure" says how
to put a new key into service without a 401.`,
  ],
  args: [],
  options: [{ name: 'jwks', type: 'boolean', description: 'Print a key set {"keys":[key]} instead of the key alone' }],
  async run({ options, io }) {
    const key = generateSigningKey();
    io.out(`${JSON.stringify(options.jwks ? { keys: [key] } : key)}\n`);
  },
};
