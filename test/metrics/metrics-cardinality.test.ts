// Covers the bound on the metrics' series: after 10,000 messages with distinct file names through file-poller → file-writer, the scrape holds exactly the series it held after the first ten, and no label value anywhere is a file name or a message id.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlow, parties, tempDir } from '../helpers/flow.js';
import type { Family } from '../helpers/prometheus-text.js';
import { scrape } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const dir = await tempDir(t);
const inbox = path.join(dir, 'in', 'globex');
await parties(server);
await mkdir(inbox, { recursive: true });
await fileFlow(server, dir, { poller: { polling_interval: 1 }, route: { name: 'r' } });

/** Writes files numbered [from, to) and waits until `to` messages are delivered in all. */
async function flow(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 500) {
    const names = Array.from(
      { length: Math.min(500, to - i) },
      (_, k) => `order-${String(i + k).padStart(5, '0')}.edi`,
    );
    await Promise.all(names.map((name) => writeFile(path.join(inbox, name), name)));
  }
  await waitFor(
    async () => {
      const [row] = await sql<{ n: string }>(
        server.db.url,
        "select count(*) as n from message where status = 'Delivered'",
      );
      return Number(row?.n) === to;
    },
    `${to} messages delivered`,
    300_000,
    500,
  );
}

/** Every series of pier's own families (Node's metrics come and go with the runtime). */
function pierSeries(families: Map<string, Family>): string[] {
  const series: string[] = [];
  for (const family of families.values()) {
    if (!family.name.startsWith('pier_')) continue;
    for (const s of family.samples) series.push(`${s.name}${JSON.stringify(s.labels)}`);
  }
  return series.sort();
}

/** Scrapes once the counts show `n` acceptances and deliveries (each thread sends its own about once a second). */
async function settledScrape(n: number): Promise<Map<string, Family>> {
  const count = (m: Map<string, Family>, family: string, labels: Record<string, string>) =>
    m.get(family)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  return waitFor(
    async () => {
      const m = await scrape(server);
      const delivered = count(m, 'pier_deliveries_finished_total', { target: 'out', outcome: 'delivered' });
      const accepted = count(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'accepted' });
      return delivered === n && accepted === n ? m : undefined;
    },
    `${n} acceptances and deliveries counted`,
    30_000,
    250,
  );
}

t.test('10,000 distinct file names add no series', async (t) => {
  await flow(0, 10);
  const before = pierSeries(await settledScrape(10));
  await flow(10, 10_010);
  const after = await settledScrape(10_010);
  t.same(pierSeries(after), before, 'the same series after 10,010 messages as after 10');
  t.ok(before.length < 200, `${before.length} series of pier's own`);
  const labelValues = [...after.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
  t.notOk(
    labelValues.some((v) => /order-\d{5}|[0-9a-f]{8}-[0-9a-f]{4}-/.test(v)),
    'no label value is a file name or a message id',
  );
  const accepted = after
    .get('pier_messages_accepted_total')!
    .samples.find((s) => s.labels.source === 'in' && s.labels.outcome === 'accepted');
  t.equal(accepted?.value, 10_010);
});
