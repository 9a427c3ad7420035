/** The payload store a process runs with, from the storage settings read at start. */
import { LocalPayloadStore } from './local-store.js';
import { LazyS3PayloadStore } from './lazy-s3-store.js';
import type { StoreSelection } from './selection.js';
import type { PayloadStore } from './store.js';

export type { StoreSelection } from './selection.js';

export function openPayloadStore(selection: StoreSelection): PayloadStore {
  switch (selection.backend) {
    case 'local':
      return new LocalPayloadStore(selection.directory);
    case 's3':
      return new LazyS3PayloadStore(selection);
    default: {
      const never: never = selection;
      throw new Error(`No payload store ${JSON.stringify(never)}`);
    }
  }
}
