import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '@devplat/config';

// Settings a production deployment must carry, for tests that start one.
export const productionEnv: Record<string, string> = {
  DEVELOPER_PLATFORM_ENVIRONMENT: 'production',
  SIGNING_KEYS: JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', kid: 'k1', x: 'x', d: 'd' }] }),
  PAIRWISE_SECRET: 'p'.repeat(32),
  COOKIE_KEYS: 'c'.repeat(32),
  DATABASE_URL: 'postgresql://db.internal/platform',
  REDIS_URL: 'redis://redis.internal:6379',
  BASE_URL: 'https://api.example.test/developer/v1',
  PLAYER_CLIENT_URL: 'https://play.example.test',
  CONSOLE_URL: 'https://console.example.test',
};

/**
 * Secrets every process of one test shares, as replicas must wherever REDIS_URL is set: real
 * keys, made once per test process.
 */
export const sharedSecrets: Record<string, string> = {
  SIGNING_KEYS: JSON.stringify({ keys: [generateSigningKey()] }),
  PAIRWISE_SECRET: randomBytes(32).toString('base64url'),
  COOKIE_KEYS: randomBytes(32).toString('base64url'),
};
