/**
 * How many threads of a receiver listen on its port. Each listener thread runs the whole
 * receiver — HTTP, reading the body, opening, the acceptance on its own database connection, the
 * receipt — so no thread carries more than its share of every message; the kernel spreads the
 * port's connections over their sockets (SO_REUSEPORT, Node's `reusePort`). The same option lets
 * another pier process on this machine listen on the same port too
 * (docs/decisions/listener-threads-share-the-receiver-s-port.md).
 *
 * A setting of 1 keeps the port to this one thread: no other thread or process may listen on it
 * (a second start fails with EADDRINUSE, as on older Node).
 *
 * `reusePort` came with Node 22.12 (and 23.1); on older Node, and on systems other than Linux
 * where Node does not offer it, the receiver listens on one thread, as before, and says why.
 */
import os from 'node:os';
import { limits } from '../../limits/limits.js';
import { threadCount } from '../shared/thread-count.js';

/** Whether `net.Server.listen` takes `reusePort` on this Node and system. */
export function portSharingAvailable(
  version: string = process.versions.node,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform !== 'linux') return false;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

export interface ListenerPlan {
  /** Threads listening on the port, this one included. */
  threads: number;
  /** Whether the port is listened on with SO_REUSEPORT (other threads and processes may share it). */
  reusePort: boolean;
  /** Why fewer threads listen than the setting asked for; absent when none are missing. */
  fewerBecause?: string;
}

/** `setting`: the receiver's listener_threads (0: one per 4 cores, at least one). */
export function listenerPlan(
  setting: number,
  cores: number = os.availableParallelism(),
  sharing: boolean = portSharingAvailable(),
): ListenerPlan {
  const wanted = threadCount(setting, cores, limits.coresPerListener, limits.maxAutomaticListeners);
  if (setting === 1) return { threads: 1, reusePort: false };
  if (sharing) return { threads: wanted, reusePort: true };
  return {
    threads: 1,
    reusePort: false,
    ...(wanted > 1
      ? {
          fewerBecause:
            `listening on one thread instead of ${wanted}: sharing a port needs Node 22.12 or later on ` +
            `Linux (this is Node ${process.versions.node} on ${process.platform})`,
        }
      : {}),
  };
}
