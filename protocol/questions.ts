/** The answer type of any question an actor asks the core beyond the flow's own requests. */
import type { As2AnswerTo, As2Request } from './as2-protocol.js';
import type { NotifyAnswerTo, NotifyRequest } from './notify-protocol.js';

export type AnswerTo<R extends As2Request | NotifyRequest> = R extends As2Request
  ? As2AnswerTo<R>
  : R extends NotifyRequest
    ? NotifyAnswerTo<R>
    : never;
