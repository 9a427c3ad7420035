/**
 * The runtime's refusals (dispatcher and supervisor) and the payload store's failures as the API
 * answers them: one table, read by the error handler, so routes let these errors through instead
 * of catching each by class.
 * The runtime knows nothing of HTTP; each entry says which code of the one error table a refusal
 * is, with the details docs/api/conventions.md#errors asks for.
 */
import { DeliveryNotFound, MessageNotFound, NotRedeliverable, NotRedispatchable } from '../flow/errors.js';
import {
  ActionRefused,
  CemRefusal,
  InstanceNotRunning,
  InstanceUnresponsive,
  StartFailed,
  UnknownInstance,
} from '../runtime/index.js';
import { StorageFailed } from '../storage/payloads/storage-failure.js';
import { ApiError, notFound, validationError } from './errors.js';

type Translation<E extends Error> = [new (...args: never[]) => E, (error: E) => ApiError];
const entry = <E extends Error>(
  type: Translation<E>[0],
  translate: Translation<E>[1],
): Translation<Error> => [type, translate as (error: Error) => ApiError];

const runtimeErrors: Translation<Error>[] = [
  entry(CemRefusal, (e) => (e.missing !== null ? notFound(e.missing) : validationError(e.problems))),
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
  // Asked of an instance not running here: today only the AS2 sender's connection check.
  entry(InstanceNotRunning, (e) =>
    e.type === 'as2-sender'
      ? new ApiError('SENDER_NOT_RUNNING', `The AS2 sender ${e.instanceName} is not running`)
      : new ApiError('INVALID_STATE', e.message),
  ),
  // It did not answer in time and was ended: not running any more, as the answer says why.
  entry(InstanceUnresponsive, (e) =>
    e.type === 'as2-sender'
      ? new ApiError('SENDER_NOT_RUNNING', `The AS2 sender ${e.instanceName} ${e.reason} and was stopped`)
      : new ApiError('INVALID_STATE', e.message),
  ),
  // The store is pier's, not the caller's: a 503 naming it (docs/decisions/a-store-that-fails-is-503-storage-unavailable-not-500.md), never a 500.
  entry(
    StorageFailed,
    (e) =>
      new ApiError('STORAGE_UNAVAILABLE', `The payload store cannot be used: ${e.message}`, {
        storage: 's3',
        operation: e.operation,
        problem: e.problem,
      }),
  ),
];

/** The API's answer to a refusal of the runtime, or undefined for any other error. */
export function fromRuntimeError(error: unknown): ApiError | undefined {
  for (const [type, translate] of runtimeErrors) {
    if (error instanceof type) return translate(error);
  }
  return undefined;
}
