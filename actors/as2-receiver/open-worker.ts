/** The task of the receiver's worker pool (open-pool.ts): opens one received message. */
import { openPayloadStore } from '../../storage/payloads/open-store.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { openMessage, type OpenResult } from './open-message.js';
import type { PooledTask } from './open-pool.js';

/** One store per selection (every receiver of a process uses the same). */
const stores = new Map<string, PayloadStore>();

export default function open({
  storage,
  warmUp,
  ...task
}: PooledTask & { warmUp?: boolean }): Promise<OpenResult> | null {
  // Sent once when the pool starts: answering it says the modules are loaded.
  if (warmUp) return null;
  const key = JSON.stringify(storage);
  let store = stores.get(key);
  if (!store) {
    store = openPayloadStore(storage);
    stores.set(key, store);
  }
  return openMessage(task, store);
}
