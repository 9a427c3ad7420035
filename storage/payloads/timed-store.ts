/**
 * A payload store that times each call for the process's metrics
 * (`pier_payload_store_seconds{backend, operation, outcome}`). The timing goes to `observe`,
 * which the caller supplies: storage/ knows nothing of the metrics registry or the threads.
 * `open` is timed until the stream is handed back, not until it has been read.
 */
import type { StoreCallObserver } from '../../protocol/payload-wire.js';
import type { PayloadStore } from './store.js';

export type { StoreCallObserver } from '../../protocol/payload-wire.js';

export function timedStore(store: PayloadStore, observe: StoreCallObserver): PayloadStore {
  const timed =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        const result = await call(...args);
        observe(operation, true, (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        observe(operation, false, (performance.now() - started) / 1000);
        throw error;
      }
    };
  return {
    selection: store.selection,
    put: timed('put', store.put.bind(store)),
    putBytes: timed('put_bytes', store.putBytes.bind(store)),
    open: timed('open', store.open.bind(store)),
    removeMessage: timed('remove_message', store.removeMessage.bind(store)),
    ...(store.putDeflated ? { putDeflated: timed('put_deflated', store.putDeflated.bind(store)) } : {}),
    ...(store.putFile ? { putFile: timed('put_file', store.putFile.bind(store)) } : {}),
    ...(store.copyToFile ? { copyToFile: timed('copy_to_file', store.copyToFile.bind(store)) } : {}),
    ...(store.fileOf ? { fileOf: timed('file_of', store.fileOf.bind(store)) } : {}),
  };
}
