// devplat_signing_key_age_seconds: how long the key this service signs with (the first of
// SIGNING_KEYS) has been in service, for the alert on a key older than the rotation period. A JWK
// carries no creation time, so the first auth process to load a key records when, once, in the
// shared store (SET NX): every replica and every restart then reads the same moment. Read once per
// process and kept; Prometheus's scrape computes the age, so no request pays for any of it.
import type { Secrets } from '@devplat/config';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';

/** Far beyond any rotation period, so the record outlives its key's service. */
const keptSeconds = 2 * 366 * 24 * 60 * 60;

export function watchSigningKeyAge(metrics: Metrics, store: KeyValueStore, secrets: Secrets): void {
  const key = secrets.signingKeys[0];
  if (!key) return;
  const storeKey = `signing-key-first-loaded:${key.kid}`;
  let since: number | null = null;
  const firstLoaded = async (): Promise<number | null> => {
    try {
      await store.putIfAbsent(storeKey, String(Math.floor(Date.now() / 1000)), keptSeconds);
      const [value] = await store.getMany([storeKey]);
      const seconds = Number(value);
      return value && Number.isFinite(seconds) ? seconds : null;
    } catch {
      return null; // The store is down (its own alert says so): tried again at the next scrape.
    }
  };
  // Recorded as the service starts, not at its first scrape.
  void firstLoaded().then((seconds) => {
    since ??= seconds;
  });
  metrics.watchSigningKey(async () => {
    since ??= await firstLoaded();
    return { kid: key.kid, ageSeconds: since === null ? null : Math.max(0, Date.now() / 1000 - since) };
  });
}
