/**
 * A lingering close (RFC 9112 section 9.6) for a request refused before its body was read.
 * Closing the connection while the client is still sending makes the kernel reset it, and a
 * reset can discard the answer before the client has read it: the sender sees a broken
 * connection instead of the 503 or 413 that tells it what to do. So what the client still
 * sends is read and dropped, the server half-closes after the answer instead of closing
 * outright, and the connection is cut when the client closes its side or after `limits.refusedLingerMs`.
 */
import type http from 'node:http';
import type net from 'node:net';
import { limits } from '../../limits/limits.js';

export function lingerThenClose(req: http.IncomingMessage): void {
  const socket = req.socket as net.Socket & { destroySoon?: () => void };
  req.resume();
  // node:http ends a `Connection: close` answer with destroySoon(), which closes the socket
  // once the answer is written; end() sends the same FIN and keeps reading.
  socket.destroySoon = () => socket.end();
  const cut = setTimeout(() => socket.destroy(), limits.refusedLingerMs);
  cut.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(cut));
}
