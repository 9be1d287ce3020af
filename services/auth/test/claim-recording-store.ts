// A memory store that notes the key of every claim (putIfAbsent): a test can then take a claim
// back as the store's undo would, after its answer was lost.
import { memoryStore } from '@devplat/kv';

export function claimRecordingStore() {
  const store = memoryStore();
  const claims: string[] = [];
  return {
    claims,
    store: {
      ...store,
      putIfAbsent: (...args: Parameters<typeof store.putIfAbsent>) => {
        claims.push(args[0]);
        return store.putIfAbsent(...args);
      },
    },
  };
}
