/**
 * Which running instance of this process listens on the port an instance is about to listen on.
 * A receiver listens with SO_REUSEPORT where Node offers it (actors/as2-receiver/listener-plan.ts),
 * so that its own threads, and the same receiver in another pier process, share the port; the
 * kernel would then let a second receiver instance of this process share it too, and split the
 * port's connections between two configurations. The supervisor refuses that start instead, as
 * the port's EADDRINUSE did before.
 */
import type { ManagedInstance } from './instance.js';

/** Types whose instances listen on this machine at their `host` and `port` settings. */
const listeningTypes: ReadonlySet<string> = new Set(['as2-receiver']);

const wildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '';

function addressOf(type: string, settings: Record<string, unknown>): { host: string; port: number } | null {
  if (!listeningTypes.has(type) || typeof settings.port !== 'number') return null;
  return { host: typeof settings.host === 'string' ? settings.host : '', port: settings.port };
}

export function portHolder(
  instances: Iterable<ManagedInstance>,
  starting: { type: string; name: string },
  settings: Record<string, unknown>,
): ManagedInstance | undefined {
  const wanted = addressOf(starting.type, settings);
  if (!wanted) return undefined;
  for (const other of instances) {
    if (other.type === starting.type && other.name === starting.name) continue;
    if (other.status !== 'running' || !other.config) continue;
    const held = addressOf(other.type, other.config.settings);
    if (
      held &&
      held.port === wanted.port &&
      (held.host === wanted.host || wildcard(held.host) || wildcard(wanted.host))
    )
      return other;
  }
  return undefined;
}
