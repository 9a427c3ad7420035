/**
 * The event stream under load: 1,000 SSE subscribers on GET /api/v1/events while files flow
 * file-poller → file-writer at a steady rate (default 200/s), in a real `pier serve` process.
 * Phases alternate without and with subscribers (A B A B with --rounds 2).
 * Figures: per phase, delivered messages/s (first acceptance to last delivery, from the stored
 * times); with subscribers, p50/p99 from a history line's created_at (set in the transaction
 * that commits it, so an upper bound of commit-to-arrival) to its arrival at a subscriber
 * (measured on --sampled connections, all lines), and the server's peak RSS growth. Each
 * phase also reports the CPU milliseconds it took in the server, in this process (the
 * subscribers' side) and in PostgreSQL, to tell where the time of a slower flow went; on a
 * shared machine they are inflated and only their proportions say something.
 * Targets: p99 < 250 ms, throughput within 10 % of the phase without subscribers, RSS < 200 MiB.
 * Options: --subscribers (1000), --rate (200), --seconds (10), --rounds (1), --sampled (20).
 * Prints one JSON line; progress to stderr. Needs DATABASE_URL (else an embedded PostgreSQL).
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { prepareWithToken } from './lib/api-token.js';
import { cpuMsOf, rssOf, watchPostgresCpu } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { startServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    sampled: { type: 'string' },
  },
});
const subscribers = Number(values.subscribers ?? 1000);
const rate = Number(values.rate ?? 200);
const seconds = Number(values.seconds ?? 10);
const rounds = Number(values.rounds ?? 1);
const sampled = Number(values.sampled ?? 20);
const log = (...args: unknown[]) => console.error('[events]', ...args);

const database = await benchDatabase();
const token = await prepareWithToken(database.url);
const server = await startServerProcess(database.url);
const db = new pg.Client({ connectionString: database.url });
await db.connect();
const work = path.join(os.tmpdir(), `pier-events-${process.pid}`);
const inbox = path.join(work, 'in', 'globex');
const staging = path.join(work, 'staging');
await mkdir(inbox, { recursive: true });
await mkdir(staging, { recursive: true });

async function post(route: string, body: unknown = {}): Promise<void> {
  const r = await fetch(`${server.url}/api/v1${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${route}: ${await r.text()}`);
}

await post('/organizations', { name: 'acme' });
await post('/partners', { name: 'globex' });
await post('/plugins/configs?type=file-writer', {
  enabled: false,
  name: 'out',
  directory: path.join(work, 'out'),
  max_concurrent_deliveries: 16,
});
await post('/plugins/configs?type=file-poller', {
  enabled: false,
  name: 'in',
  base_directory: path.join(work, 'in'),
  processed_directory: path.join(work, 'done'),
  from: 'acme',
  polling_interval: 1,
});
await post('/routes', { source_plugin: 'in', from: 'acme', to: 'globex', target_plugin: 'out' });
await post('/services/file-writer/out/start');
await post('/services/file-poller/in/start');

interface Subscriber {
  request: http.ClientRequest;
}

/** Opens the subscribers; sampled ones record each line's delay from created_at to arrival. */
async function subscribe(n: number, delays: number[]): Promise<Subscriber[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const opened: Subscriber[] = [];
  for (let i = 0; i < n; i++) {
    const sample = i < sampled;
    await new Promise<void>((resolve, reject) => {
      const request = http.get(
        `${server.url}/api/v1/events`,
        { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
        (response) => {
          if (response.statusCode !== 200) reject(new Error(`events answered ${response.statusCode}`));
          if (!sample) response.resume();
          else {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              const now = Date.now();
              text += chunk;
              let end: number;
              while ((end = text.indexOf('\n\n')) >= 0) {
                const frame = text.slice(0, end);
                text = text.slice(end + 2);
                const data = /^data: (.*)$/m.exec(frame)?.[1];
                if (data)
                  delays.push(now - Date.parse((JSON.parse(data) as { created_at: string }).created_at));
              }
            });
          }
          resolve();
        },
      );
      request.on('error', () => {});
      opened.push({ request });
    });
  }
  return opened;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
let fileNo = 0;

async function phase(withSubscribers: boolean) {
  const delays: number[] = [];
  const subs = withSubscribers ? await subscribe(subscribers, delays) : [];
  await new Promise((r) => setTimeout(r, 1000));
  const rssBefore = rssOf(server.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, rssOf(server.pid));
    } catch {
      // the server has exited; the phase fails below
    }
  }, 200);
  const { rows: startRows } = await db.query<{ n: number }>(
    "select count(*)::int as n from delivery where state = 'delivered'",
  );
  const before = startRows[0]!.n;
  const since = new Date();
  const serverCpu = cpuMsOf(server.pid);
  const clientCpu = process.cpuUsage();
  const postgresCpu = watchPostgresCpu(database.name);
  const total = rate * seconds;
  const started = Date.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `m${fileNo++}.txt`;
    await writeFile(path.join(staging, name), `${name}\n`.padEnd(1024, 'x'));
    await rename(path.join(staging, name), path.join(inbox, name));
  }
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from delivery where state = 'delivered'",
    );
    if (rows[0]!.n >= before + total) break;
    if (Date.now() - started > (seconds + 120) * 1000) throw new Error('the flow did not finish');
    await new Promise((r) => setTimeout(r, 250));
  }
  const cpu_ms = {
    server: cpuMsOf(server.pid) - serverCpu,
    subscribers: Math.round((process.cpuUsage(clientCpu).user + process.cpuUsage(clientCpu).system) / 1000),
    postgres: postgresCpu.stop(),
  };
  // Lines still on their way to the sampled subscribers.
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(sampler);
  const { rows } = await db.query<{ first: Date; last: Date; n: number }>(
    `select min(m.created_at) as first, max(d.finished_at) as last, count(*)::int as n
       from message m join delivery d on d.message_id = m.id where m.created_at >= $1`,
    [since],
  );
  const span = (rows[0]!.last.getTime() - rows[0]!.first.getTime()) / 1000;
  subs.forEach((s) => s.request.destroy());
  delays.sort((a, b) => a - b);
  const result = {
    subscribers: subs.length,
    delivered_per_s: Math.round((rows[0]!.n / span) * 10) / 10,
    cpu_ms,
    ...(withSubscribers
      ? {
          lines_sampled: delays.length,
          p50_ms: percentile(delays, 0.5),
          p99_ms: percentile(delays, 0.99),
          rss_growth_mib: Math.round(((rssPeak - rssBefore) / 1024 / 1024) * 10) / 10,
        }
      : {}),
  };
  log(result);
  await new Promise((r) => setTimeout(r, 2000));
  return result;
}

const results = [];
try {
  for (let r = 0; r < rounds; r++) {
    results.push(await phase(false));
    results.push(await phase(true));
  }
  console.log(JSON.stringify({ benchmark: 'events', rate, seconds, results }));
} catch (error) {
  log('failed:', error);
  process.exitCode = 1;
} finally {
  await db.end();
  await server.stop();
  await database.drop();
  await rm(work, { recursive: true, force: true });
}
