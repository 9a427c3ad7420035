/** Waiting for a server a benchmark (pier bench, or the repository's benchmarks) started to accept connections on a loopback port. */
import net from 'node:net';

/**
 * Resolves once something accepts connections on the loopback `port`; rejects after
 * `timeoutMs`, or at once when `gone()` says the server's process ended (naming `what`).
 */
export async function untilListening(
  port: number,
  options: { timeoutMs?: number; gone?: () => string | null } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    const gone = options.gone?.();
    if (gone) throw new Error(gone);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port} after ${timeoutMs / 1000} s`);
}
