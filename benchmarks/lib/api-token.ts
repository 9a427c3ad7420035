/**
 * Prepares a benchmark database: migrations, optional data, and a local service account with
 * an API token made through the same services the CLI uses (`pier bench self` makes its own the
 * same way). Returns the token.
 */
import { benchAccountToken } from '../../cli/bench/self-server.js';
import type { Orm } from '../../storage/db.js';

export function prepareWithToken(url: string, prepare?: (orm: Orm) => Promise<void>): Promise<string> {
  return benchAccountToken(url, { actor: 'system', description: '' }, prepare);
}
