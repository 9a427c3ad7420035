// The task file of the receiver's worker pool (open-pool.ts). Plain JavaScript because a
// pool thread does not inherit tsx's loader; it loads the TypeScript modules through tsx.
import { tsImport } from 'tsx/esm/api';

const { openMessage } = await tsImport('./open-message.ts', import.meta.url);
const { openPayloadStore } = await tsImport('../../storage/payloads/open-store.ts', import.meta.url);

/** One store per selection (every receiver of a process uses the same). */
const stores = new Map();

export default function open({ storage, warmUp, ...task }) {
  // Sent once when the pool starts: answering it says the modules are loaded.
  if (warmUp) return null;
  const key = JSON.stringify(storage);
  if (!stores.has(key)) stores.set(key, openPayloadStore(storage));
  return openMessage(task, stores.get(key));
}
