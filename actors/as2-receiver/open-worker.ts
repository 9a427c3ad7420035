/** The task of the receiver's worker pool (open-pool.ts): opens one received message. */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { movableMemory } from '../../protocol/payload-wire.js';
import { nameThisThread } from '../../protocol/worker-host/thread-name.js';
import { openPayloadStore } from '../../storage/payloads/open-store.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { openMessage, type OpenResult, type OpenTask } from './open-message.js';
import type { MissingContext, PooledTask } from './open-pool.js';
import { limits } from '../../limits/limits.js';

// Told apart from the receiver's own thread in `top -H` and the benchmarks' per-thread shares.
nameThisThread('as2-open');

/** One store per selection (every receiver of a process uses the same). */
const stores = new Map<string, PayloadStore>();

/**
 * The contexts this thread was sent, by key, newest last. A receiver makes a new one every few
 * seconds per pair of parties; beyond this many the oldest go.
 */
const contexts = new Map<string, OpenTask['context']>();

function contextOf(key: string, sent: OpenTask['context'] | undefined): OpenTask['context'] | undefined {
  if (!sent) return contexts.get(key);
  contexts.set(key, sent);
  if (contexts.size > limits.maxOpenContexts) contexts.delete(contexts.keys().next().value!);
  return sent;
}

export default function open({
  storage,
  warmUp,
  contextKey,
  context: sent,
  ...task
}: PooledTask & { warmUp?: boolean }): Promise<OpenResult> | MissingContext | null {
  // Sent once when the pool starts: answering it says the modules are loaded.
  if (warmUp) return null;
  const context = contextOf(contextKey, sent);
  if (!context) return { missingContext: true };
  const key = JSON.stringify(storage);
  let store = stores.get(key);
  if (!store) {
    store = openPayloadStore(storage);
    stores.set(key, store);
  }
  return openMessage({ ...task, context }, store).then(movingDocument);
}

/**
 * The result, with the memory of a document in it moved to the receiver's thread instead of
 * copied (a MiB copied and collected twice per message), when the document has it to itself.
 */
function movingDocument(result: OpenResult): OpenResult {
  const memory = result.document ? movableMemory(result.document) : [];
  if (memory.length === 0) return result;
  return move({
    get [transferableSymbol]() {
      return memory;
    },
    get [valueSymbol]() {
      return result;
    },
  }) as unknown as OpenResult;
}
