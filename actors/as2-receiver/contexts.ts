/** The profiles behind AS2-To/AS2-From, asked of the core and kept for a few seconds. */
import type { As2InboundContext } from '../../protocol/as2-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { KeptAnswers } from '../as2-shared/kept-answers.js';

export class InboundContexts {
  readonly #kept: KeptAnswers<As2InboundContext>;

  constructor(core: CoreClient) {
    this.#kept = new KeptAnswers(async (key) => {
      const [as2To, as2From] = key.split('\u0000') as [string, string];
      const answer = await core.ask({ type: 'as2_inbound', as2_to: as2To, as2_from: as2From });
      return answer.context;
    });
  }

  get(as2To: string, as2From: string): Promise<As2InboundContext> {
    return this.#kept.get(`${as2To}\u0000${as2From}`);
  }
}
