/** Scraping a test server's `/metrics` as Prometheus would, parsed (prometheus-text.ts). */
import { parsePrometheusText, type Family } from './prometheus-text.js';
import type { TestServer } from './server.js';
import { waitFor } from './wait.js';

export async function scrape(server: TestServer): Promise<Map<string, Family>> {
  if (!server.metricsUrl)
    throw new Error('The server has no metrics endpoint (start it with METRICS_PORT=0)');
  const answer = await fetch(`${server.metricsUrl}/metrics`);
  if (answer.status !== 200) throw new Error(`GET /metrics answered ${answer.status}`);
  return parsePrometheusText(await answer.text());
}

/**
 * Scrapes until `done` holds: actor threads send their counts about once a second
 * (protocol/worker-host/host.ts), so a count may lag the message it counts by that much.
 */
export async function scrapeUntil(
  server: TestServer,
  done: (families: Map<string, Family>) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Map<string, Family>> {
  let last: Map<string, Family> | undefined;
  return waitFor(
    async () => {
      last = await scrape(server);
      return done(last) ? last : undefined;
    },
    what,
    timeoutMs,
    200,
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}; last scrape: ${JSON.stringify([...(last?.values() ?? [])].filter((f) => f.name.startsWith('pier_')))}`,
    );
  });
}
