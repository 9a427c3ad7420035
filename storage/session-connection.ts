/**
 * A connection of its own, outside every pool, for state PostgreSQL keeps per session: the
 * advisory locks a process holds for as long as it lives (runtime/cluster/presence.ts). A pooled
 * connection would hand the session to other work, and the entity API has no session at all, so
 * this is the one raw client of the runtime, opened here where the database is known.
 */
import { connectToPrimary } from './primary-locator.js';

export interface SessionConnection {
  /** Runs one statement with `$1` placeholders; its rows. */
  rows<T extends object>(text: string, params: unknown[]): Promise<T[]>;
  /** Closes the session; PostgreSQL drops its session locks with it. */
  end(): Promise<void>;
}

/** Opens a session; `onError` hears of it when the connection is lost (its locks are gone then). */
export async function openSessionConnection(
  url: string,
  onError: (error: Error) => void,
): Promise<SessionConnection> {
  const { client, connect } = await connectToPrimary(url);
  client.on('error', onError);
  await connect();
  return {
    rows: async <T extends object>(text: string, params: unknown[]) =>
      (await client.query<T>(text, params)).rows,
    end: () => client.end(),
  };
}
