/** The payload store an actor opens: the process's selection, each call timed for the metrics. */
import { storeTiming } from '../../protocol/metrics/store-timing.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { openPayloadStore } from '../../storage/payloads/open-store.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { timedStore } from '../../storage/payloads/timed-store.js';

export function openActorStore(start: ActorStartData, core: CoreClient): PayloadStore {
  const store = openPayloadStore(start.storage);
  // Without metrics, the calls are not timed either: nothing would read the times.
  return start.metrics ? timedStore(store, storeTiming(core.metrics, start.storage.backend)) : store;
}
