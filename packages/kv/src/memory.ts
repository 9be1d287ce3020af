import type { KeyValueStore } from './store.ts';

/**
 * In-process store for the one-process default (`npm start`). It is only correct while a
 * single process serves every request, which is why production requires REDIS_URL.
 */
export function memoryStore(): KeyValueStore {
  const values = new Map<string, { value: string | Set<string>; expires: number }>();
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry && entry.expires <= Date.now()) {
      values.delete(key);
      return undefined;
    }
    return entry;
  };
  const expiry = (ttl?: number) => (ttl ? Date.now() + ttl * 1000 : Number.POSITIVE_INFINITY);
  // Drop expired entries now and then so a long-running process does not grow without bound.
  const sweep = setInterval(() => {
    for (const key of values.keys()) live(key);
  }, 60_000);
  sweep.unref();
  return {
    put: async (key, value, ttl) => {
      values.set(key, { value, expires: expiry(ttl) });
    },
    putIfAbsent: async (key, value, ttl) => {
      if (live(key)) return false;
      values.set(key, { value, expires: expiry(ttl) });
      return true;
    },
    increment: async (key) => {
      const entry = live(key);
      const next = Number(typeof entry?.value === 'string' ? entry.value : 0) + 1;
      values.set(key, { value: String(next), expires: entry?.expires ?? Number.POSITIVE_INFINITY });
      return next;
    },
    addToCounters: async (counts, ttl) => {
      for (const [key, n] of counts) {
        const entry = live(key);
        const next = Number(typeof entry?.value === 'string' ? entry.value : 0) + n;
        values.set(key, { value: String(next), expires: expiry(ttl) });
      }
    },
    putFiled: async (key, value, ttl, setKey) => {
      const entry = live(setKey);
      const set = entry?.value instanceof Set ? entry.value : new Set<string>();
      set.add(key);
      values.set(setKey, { value: set, expires: Math.max(entry?.expires ?? 0, expiry(ttl)) });
      values.set(key, { value, expires: expiry(ttl) });
    },
    swap: async (key, { from, to, ttlSeconds }, claim) => {
      const value = live(key)?.value;
      if (typeof value !== 'string' || !value.startsWith(from) || live(claim.key)) return false;
      values.set(claim.key, { value: claim.value, expires: expiry(claim.ttlSeconds) });
      values.set(key, { value: to, expires: expiry(ttlSeconds) });
      return true;
    },
    getMany: async (keys) =>
      keys.map((key) => {
        const value = live(key)?.value;
        return typeof value === 'string' ? value : null;
      }),
    delete: async (keys) => {
      for (const key of keys) values.delete(key);
    },
    addToSet: async (key, member, ttl) => {
      const entry = live(key);
      const set = entry?.value instanceof Set ? entry.value : new Set<string>();
      set.add(member);
      values.set(key, { value: set, expires: Math.max(entry?.expires ?? 0, expiry(ttl)) });
    },
    members: async (key) => {
      const value = live(key)?.value;
      return value instanceof Set ? [...value] : [];
    },
    ping: async () => {},
    ready: async () => {},
    close: async () => {
      clearInterval(sweep);
      values.clear();
    },
  };
}
