/**
 * The runtime's refusals (dispatcher and supervisor) as the API answers them: one table, read by
 * the error handler, so routes let these errors through instead of catching each by class.
 * The runtime knows nothing of HTTP; each entry says which code of the one error table a refusal
 * is, with the details spec 7 asks for.
 */
import {
  DeliveryNotFound,
  MessageNotFound,
  NotRedeliverable,
  NotRedispatchable,
} from '../runtime/dispatch/errors.js';
import { ActionRefused, StartFailed, UnknownInstance } from '../runtime/supervisor/errors.js';
import { ApiError, notFound } from './errors.js';

type Translation<E extends Error> = [new (...args: never[]) => E, (error: E) => ApiError];
const entry = <E extends Error>(
  type: Translation<E>[0],
  translate: Translation<E>[1],
): Translation<Error> => [type, translate as (error: Error) => ApiError];

const runtimeErrors: Translation<Error>[] = [
  entry(MessageNotFound, () => notFound('Message')),
  entry(DeliveryNotFound, () => notFound('Delivery')),
  entry(
    NotRedispatchable,
    (e) => new ApiError('NOT_REDISPATCHABLE', e.message, { stage: e.stage, allowed: e.allowed }),
  ),
  entry(
    NotRedeliverable,
    (e) => new ApiError('NOT_REDELIVERABLE', e.message, { state: e.state, allowed: e.allowed }),
  ),
  entry(UnknownInstance, (e) => notFound(`Service ${e.type}/${e.instanceName}`)),
  entry(
    ActionRefused,
    (e) => new ApiError('INVALID_STATE', e.message, { status: e.status, actions: e.allowed }),
  ),
  entry(StartFailed, (e) => new ApiError('START_FAILED', e.reason)),
];

/** The API's answer to a refusal of the runtime, or undefined for any other error. */
export function fromRuntimeError(error: unknown): ApiError | undefined {
  for (const [type, translate] of runtimeErrors) {
    if (error instanceof type) return translate(error);
  }
  return undefined;
}
