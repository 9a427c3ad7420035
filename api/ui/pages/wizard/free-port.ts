/**
 * A port to suggest for a new AS2 receiver: the first from the type's default upwards that no
 * configured receiver uses and that this host lets us listen on now. A suggestion only: the
 * operator may type another, and the receiver's start says whether it got the port.
 */
import net from 'node:net';
import { limits } from '../../../../limits/limits.js';

/** Whether something may listen on the port on every address now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export async function suggestPort(from: number, taken: ReadonlySet<number>): Promise<number> {
  for (let port = from; port < Math.min(from + limits.freePortTries, 65_536); port++) {
    if (!taken.has(port) && (await canListen(port))) return port;
  }
  return from;
}
