/**
 * A value loaded on demand and kept for `keepMs(value)` milliseconds; concurrent callers share
 * one load, and a load that fails is not kept.
 */
export function keptValue<T>(load: () => Promise<T>, keepMs: (value: T) => number): () => Promise<T> {
  let kept: { value: T; until: number } | undefined;
  let loading: Promise<T> | undefined;
  return () => {
    if (kept && kept.until > Date.now()) return Promise.resolve(kept.value);
    loading ??= load()
      .then((value) => {
        kept = { value, until: Date.now() + keepMs(value) };
        return value;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
}
