/** The profiles of an organization and a partner, asked of the core and kept for a few seconds. */
import type { As2OutboundResponse } from '../../protocol/as2-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { KeptAnswers } from '../as2-shared/kept-answers.js';

export type OutboundContextAnswer = As2OutboundResponse['context'];

export class OutboundContexts {
  readonly #kept: KeptAnswers<OutboundContextAnswer>;

  constructor(core: CoreClient) {
    this.#kept = new KeptAnswers(async (key) => {
      const [organization, partner] = key.split('\u0000') as [string, string];
      const answer = await core.ask({ type: 'as2_outbound', organization, partner });
      return answer.context;
    });
  }

  forget(organization: string, partner: string): void {
    this.#kept.forget(`${organization}\u0000${partner}`);
  }

  get(organization: string, partner: string): Promise<OutboundContextAnswer> {
    return this.#kept.get(`${organization}\u0000${partner}`);
  }
}
