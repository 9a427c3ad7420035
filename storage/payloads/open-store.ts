/** The payload store a process runs with, from the storage settings read at start. */
import { LocalPayloadStore } from './local-store.js';
import type { PayloadStore } from './store.js';

export interface StoreSelection {
  backend: 'local';
  directory: string;
}

export function openPayloadStore(selection: StoreSelection): PayloadStore {
  switch (selection.backend) {
    case 'local':
      return new LocalPayloadStore(selection.directory);
    default: {
      const never: never = selection.backend;
      throw new Error(`No payload store ${String(never)}`);
    }
  }
}
