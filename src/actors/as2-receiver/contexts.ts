/**
 * The profiles behind AS2-To/AS2-From, asked of the core and kept for a few seconds so a
 * burst from one partner asks once; a changed profile counts within that time.
 */
import { As2InboundResponse, type As2InboundContext } from '../../runtime/channels/as2-protocol.js';
import type { CoreClient } from '../../runtime/worker-host/host.js';

const keepMs = 5000;

export class InboundContexts {
  readonly #cache = new Map<string, { at: number; context: Promise<As2InboundContext> }>();

  constructor(private readonly core: CoreClient) {}

  get(as2To: string, as2From: string): Promise<As2InboundContext> {
    const key = `${as2To}\u0000${as2From}`;
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit && now - hit.at < keepMs) return hit.context;
    if (this.#cache.size > 1000) this.#cache.clear();
    const context = this.core
      .ask({ type: 'as2_inbound', as2_to: as2To, as2_from: as2From })
      .then((answer) => As2InboundResponse.parse(answer).context);
    context.catch(() => this.#cache.delete(key));
    this.#cache.set(key, { at: now, context });
    return context;
  }
}
