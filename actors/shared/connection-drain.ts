/**
 * A stopping HTTP server's connections, so that a stop ends within its deadline whatever clients
 * do. Node's `server.close()` waits for every connection to end, and a client that opened one and
 * never sent a request (a browser's preconnect, a load balancer's probe, a port scan) or stalls
 * mid-body holds it for minutes. The server keeps listening while it drains (new requests are
 * answered 503 by their handlers); this class counts the requests in hand per connection, ends
 * the connections that have none once they are silent for a second after the drain starts
 * (idle, or with a request whose headers stopped arriving), gives up a body that stops
 * arriving, closes each other connection once its last answer is out, and destroys what is
 * left at the deadline.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { limits } from '../../limits/limits.js';

export class ConnectionDrain {
  /** Every open connection, with the requests it is answering now. */
  readonly #sockets = new Map<Socket, number>();
  /** Requests whose bodies are still arriving. */
  readonly #receiving = new Set<IncomingMessage>();
  #draining = false;
  #settled: (() => void) | undefined;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.set(socket, 0);
      if (this.#draining) this.#closeIfSilent(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#check();
      });
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = connectionOf(request.socket);
      this.#sockets.set(socket, (this.#sockets.get(socket) ?? 0) + 1);
      // A request came: the silence watch is over (a body's own watch follows).
      if (this.#draining) request.socket.setTimeout(0);
      if (!request.complete) {
        this.#receiving.add(request);
        const received = () => {
          this.#receiving.delete(request);
          if (this.#draining) request.socket.setTimeout(0);
        };
        request.once('end', received);
        request.once('close', received);
        if (this.#draining) this.#watchStall(request);
      }
      // While draining, no connection is kept for a next request.
      if (this.#draining && !response.headersSent) response.setHeader('Connection', 'close');
      response.once('close', () => {
        const left = (this.#sockets.get(socket) ?? 1) - 1;
        if (this.#sockets.has(socket)) this.#sockets.set(socket, left);
        if (this.#draining && left === 0) this.#closeIfSilent(socket);
        this.#check();
      });
    });
  }

  /** Requests being answered now, on every connection. */
  get inHand(): number {
    let n = 0;
    for (const count of this.#sockets.values()) n += count;
    return n;
  }

  /**
   * The drain starts: connections without a request in hand end once silent (#closeIfSilent),
   * bodies still arriving are watched for a stall, the other connections end after their answers.
   */
  start(): void {
    this.#draining = true;
    for (const [socket, count] of this.#sockets) if (count === 0) this.#closeIfSilent(socket);
    for (const request of this.#receiving) this.#watchStall(request);
  }

  /**
   * A connection without a request in hand is ended once it has been silent for `limits.drainSilentConnectionMs`. Not
   * at once: a keep-alive client may have its next request on the way, not yet read, and ending
   * the connection under it would reset that request where a 503 tells the client to come back.
   * Bytes arriving (a request's first ones) put the end off; a request that comes is answered.
   */
  #closeIfSilent(socket: Socket): void {
    socket.setTimeout(limits.drainSilentConnectionMs, () => {
      if ((this.#sockets.get(socket) ?? 0) === 0) socket.destroy();
    });
  }

  /**
   * A body that stops arriving for `limits.drainStalledBodyMs` while the server drains is given up (its
   * connection ended): a client that stalls must not hold the stop until its deadline. One
   * whose bytes keep coming finishes; the wait restarts with every chunk.
   */
  #watchStall(request: IncomingMessage): void {
    request.socket.setTimeout(limits.drainStalledBodyMs, () => request.socket.destroy());
  }

  /**
   * Resolves once no request is in hand, or at `until` (epoch milliseconds), whichever comes
   * first; true when every request was answered.
   */
  async settled(until: number): Promise<boolean> {
    if (this.inHand === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      new Promise<boolean>((resolve) => (this.#settled = () => resolve(true))),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))),
      ),
    ]);
    clearTimeout(timer);
    this.#settled = undefined;
    return done;
  }

  /** Ends every connection left, answered or not: the deadline has come. */
  destroyAll(): void {
    for (const socket of this.#sockets.keys()) socket.destroy();
  }

  #check(): void {
    if (this.#settled && this.inHand === 0) this.#settled();
  }
}

/**
 * The TCP connection a request came on. Over TLS the request's socket wraps it, and Node keeps
 * the wrapped one as `_parent` (no public way to it): counting by the TCP socket, which
 * 'connection' named, keeps one count per connection for HTTP and HTTPS alike.
 */
function connectionOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}
