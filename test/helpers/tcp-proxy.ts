/**
 * A loopback TCP proxy a test can cut: every open connection is reset and the port refuses new
 * ones until it is restored. Between pier and its PostgreSQL it is a real database outage, as
 * a restart or a network fault gives, without stopping the server other tests share.
 */
import net from 'node:net';
import type { Test } from 'tap';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TcpProxy {
  port: number;
  /** Resets every connection through the proxy and refuses new ones. */
  cut(): Promise<void>;
  /**
   * From now until the next cut, what the server answers is dropped while what the client sends
   * still goes through: a statement runs and commits, and its answer is lost, as when the
   * network fails after a commit.
   */
  muffle(): void;
  /** Accepts connections on the same port again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  let muffled = false;
  const listen = async () => {
    const s = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        open.add(socket);
        socket.on('close', () => open.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (!muffled) client.write(chunk);
      });
      // PostgreSQL closing a session (a drop, a terminate) reaches pier, as without the proxy.
      upstream.on('end', () => client.end());
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as net.AddressInfo).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    muffled = false;
    // Node 20 leaks a socket reset while its end() is still being sent (the reset fails with
    // EINVAL and the process spins at exit, never ending): such a socket is closed plainly.
    for (const socket of open) {
      if (socket.writableEnded) socket.destroy();
      else socket.resetAndDestroy();
    }
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    muffle: () => {
      muffled = true;
    },
    restore: listen,
    close: stop,
  };
}

/**
 * A database of the test's own behind a proxy it can cut: `url` goes through the proxy (give it
 * to pier), `db.url` goes straight to PostgreSQL (for the test's own checks). Both are removed
 * when `t` ends.
 */
export async function databaseBehindProxy(
  t: Test,
): Promise<{ db: TestDatabase; proxy: TcpProxy; url: string }> {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const direct = new URL(db.url);
  const proxy = await tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  t.teardown(() => proxy.close());
  const throughProxy = new URL(db.url);
  throughProxy.host = `127.0.0.1:${proxy.port}`;
  return { db, proxy, url: throughProxy.toString() };
}
