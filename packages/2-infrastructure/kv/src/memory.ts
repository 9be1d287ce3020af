import { DependencyUnavailableError } from '@devplat/errors';
import type { FiledEntry, KeyValueStore, StreamEntry, StreamRead } from './store.ts';

/** An entry id as its two numbers, to compare: the time in ms, then the sequence within it. */
const idParts = (id: string): [number, number] => {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
};
const compareIds = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];

/** A JSON object's field, as Redis's cjson reads it; undefined for anything else. */
function fieldOf(json: string, field: string): unknown {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[field] : undefined;
  } catch {
    return undefined;
  }
}

/** A stream as Redis keeps one: entries in id order, each id after the last one given. */
class MemoryStream {
  entries: (StreamEntry & { at: [number, number] })[] = [];
  last: [number, number] = [0, 0];

  /** Appends with an id past this stream's last and `after` (the last of the streams it follows). */
  add(value: string, after: [number, number]): void {
    const now = Date.now();
    const top = compareIds(after, this.last) > 0 ? after : this.last;
    this.last = now > top[0] ? [now, 0] : [top[0], top[1] + 1];
    this.entries.push({ id: `${this.last[0]}-${this.last[1]}`, value, at: this.last });
  }

  trim(maxLength: number, minTime: number): void {
    const fresh = this.entries.filter((entry) => entry.at[0] >= minTime);
    this.entries = fresh.slice(Math.max(0, fresh.length - maxLength));
  }

  read({ direction, from, minTime, count }: StreamRead): StreamEntry[] {
    const start = from && { at: idParts(from.id), inclusive: from.inclusive };
    const inRange = this.entries.filter((entry) => {
      if (minTime !== undefined && entry.at[0] < minTime) return false;
      if (!start) return true;
      const order = compareIds(entry.at, start.at) * (direction === 'older' ? -1 : 1);
      return order > 0 || (order === 0 && start.inclusive);
    });
    const ordered = direction === 'older' ? inRange.reverse() : inRange;
    return ordered.slice(0, count).map(({ id, value }) => ({ id, value }));
  }
}

/**
 * In-process store for the one-process default (`npm start`). It is only correct while a
 * single process serves every request, which is why production requires REDIS_URL.
 */
export function memoryStore(): KeyValueStore {
  const values = new Map<string, { value: string | Set<string> | MemoryStream; expires: number }>();
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
  let closed = false;
  const sweep = setInterval(() => {
    for (const key of values.keys()) live(key);
  }, 60_000);
  sweep.unref();
  const putFiled = ({ key, value, setKey }: FiledEntry, ttl?: number) => {
    const entry = live(setKey);
    const set = entry?.value instanceof Set ? entry.value : new Set<string>();
    set.add(key);
    values.set(setKey, { value: set, expires: Math.max(entry?.expires ?? 0, expiry(ttl)) });
    values.set(key, { value, expires: expiry(ttl) });
  };
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
    putFiled: async (key, value, ttl, setKey) => putFiled({ key, value, setKey }, ttl),
    swap: async (key, { from, to, ttlSeconds, alongside }, claim) => {
      const value = live(key)?.value;
      if (typeof value !== 'string' || !value.startsWith(from) || live(claim.key)) return false;
      values.set(claim.key, { value: claim.value, expires: expiry(claim.ttlSeconds) });
      values.set(key, { value: to, expires: expiry(ttlSeconds) });
      if (alongside) putFiled(alongside, ttlSeconds);
      return true;
    },
    takeOnce: async (key, { field, equals }, claim) => {
      const value = live(key)?.value;
      if (typeof value !== 'string') return { outcome: 'none' };
      if (fieldOf(value, field) !== equals) return { outcome: 'kept' };
      if (live(claim.key)) return { outcome: 'none' };
      values.set(claim.key, { value: claim.value, expires: expiry(claim.ttlSeconds) });
      values.delete(key);
      return { outcome: 'taken', value };
    },
    getMany: async (keys) =>
      keys.map((key) => {
        const value = live(key)?.value;
        return typeof value === 'string' ? value : null;
      }),
    delete: async (keys) => {
      for (const key of keys) values.delete(key);
    },
    appendToStreams: async (appends) => {
      for (const { key, values: added, maxLength, minTime, ttlSeconds, follows = [] } of appends) {
        const entry = live(key);
        const stream = entry?.value instanceof MemoryStream ? entry.value : new MemoryStream();
        let after: [number, number] = [0, 0];
        for (const followed of follows) {
          const other = live(followed)?.value;
          if (other instanceof MemoryStream && compareIds(other.last, after) > 0) after = other.last;
        }
        for (const value of added) stream.add(value, after);
        stream.trim(maxLength, minTime);
        values.set(key, { value: stream, expires: expiry(ttlSeconds) });
      }
    },
    readStream: async (key, read) => {
      const stream = live(key)?.value;
      return stream instanceof MemoryStream ? stream.read(read) : [];
    },
    members: async (key) => {
      const value = live(key)?.value;
      return value instanceof Set ? [...value] : [];
    },
    // Like a Redis connection, a closed store no longer answers: readiness reads it so.
    ping: async () => {
      if (closed) throw new DependencyUnavailableError('the in-memory store (closed)');
    },
    ready: async () => {},
    close: async () => {
      closed = true;
      clearInterval(sweep);
      values.clear();
    },
  };
}
