/**
 * `GET /metrics` in the Prometheus text format, on a listener of its own (METRICS_PORT, bound to
 * METRICS_HOST, loopback by default) rather than on the API's port: the API's port faces
 * partners and browsers, while what the metrics tell (partner names, volumes, failures) is for
 * whoever can reach the host's loopback or the network the operator opens it to. No token:
 * Prometheus scrapes without a secret to leak or rotate, and the bind address is the control
 * (docs/decisions/metrics-on-a-port-of-its-own-bound-to-loopback.md).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsListener {
  /** http://host:port of the listener. */
  url: string;
  close(): Promise<void>;
}

export async function listenForMetrics(
  source: MetricsSource,
  where: { port: number; host: string },
  logger: Logger,
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: scrape /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('Method not allowed\n');
      return;
    }
    source.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        // The cause (a database error of a cluster gauge) goes to the log, not to the scraper.
        logger.error({ err: error }, 'metrics could not be collected');
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Metrics could not be collected\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000; // longer than Prometheus's scrape interval, so it reuses the socket
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
