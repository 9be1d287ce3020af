// The platform's secrets: signing keys, the pairwise-subject key and cookie keys. In production,
// and wherever REDIS_URL is set (several processes share state), they come from the environment
// (loadConfig requires them there); only the one-process embedded default generates what is not
// set, once, and keeps it in DATA_DIR/secrets.json, so tokens and sessions survive a restart.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';

export interface SigningKey {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  x: string;
  d: string;
}

export interface Secrets {
  /** Private Ed25519 JWKs; the first signs, all are published. */
  signingKeys: SigningKey[];
  pairwiseSecret: string;
  cookieKeys: string[];
}

/** RFC 7638 thumbprint of an Ed25519 public key. */
function thumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}

export function generateSigningKey(): SigningKey {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', kid: thumbprint(jwk.x as string), x: jwk.x as string, d: jwk.d as string };
}

const randomSecret = () => randomBytes(32).toString('base64url');

function fromSettings(config: Config): Partial<Secrets> {
  const { signingKeys, pairwiseSecret, cookieKeys } = config.secretSettings;
  return {
    ...(signingKeys && { signingKeys: (JSON.parse(signingKeys) as { keys: SigningKey[] }).keys }),
    ...(pairwiseSecret && { pairwiseSecret }),
    ...(cookieKeys && { cookieKeys: cookieKeys.split(',').map((key) => key.trim()) }),
  };
}

export function resolveSecrets(config: Config): Secrets {
  const given = fromSettings(config);
  if (given.signingKeys && given.pairwiseSecret && given.cookieKeys) return given as Secrets;
  if (config.environment === 'production' || config.redisUrl !== null) {
    throw new Error('shared secrets must come from the environment');
  }
  const file = join(config.dataDir, 'secrets.json');
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const generated: Secrets = {
    signingKeys: stored.signingKeys ?? [generateSigningKey()],
    pairwiseSecret: stored.pairwiseSecret ?? randomSecret(),
    cookieKeys: stored.cookieKeys ?? [randomSecret()],
  };
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
  }
  return { ...generated, ...given };
}
