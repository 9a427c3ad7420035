/**
 * A refused token: always 401 INVALID_TOKEN with the same words (docs/api/authentication.md), while the real
 * reason travels along for the log only.
 */
import { ApiError } from '../errors.js';

export class TokenRefused extends ApiError {
  constructor(readonly reason: string) {
    super('INVALID_TOKEN');
  }
}
