// Covers a source recording its own acceptances: the file poller's acceptance runs on the thread's own connection (named pier-<node>-<n> in pg_stat_activity), its untagged NOTIFY pokes the file writer of the same process (each file delivered at once rather than at the stall sweep, 10 s), and each acceptance is logged once, through the source's log.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { pollerToWriter, runningOn, tempDir, waitForMessages } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  }),
);
const server = await startTestServer(t, { logger });
const dir = await tempDir(t);
const { inbox } = await pollerToWriter(server, dir);
await runningOn(server, 'file-poller', 'in');
await runningOn(server, 'file-writer', 'out');

t.test('each file is delivered at once: the acceptance pokes the writer', async (t) => {
  for (let n = 1; n <= 3; n++) {
    await writeFile(path.join(inbox, 'globex', `order-${n}.edi`), `order ${n}`);
    await waitForMessages(server, 'status=Delivered', (l) => l.length === n, `file ${n} delivered`);
  }
  const rows = await sql<{ file_name: string; ms: number }>(
    server.db.url,
    `select m.file_name, extract(epoch from (d.finished_at - m.created_at)) * 1000 as ms
       from message m join delivery d on d.message_id = m.id order by m.file_name`,
  );
  t.equal(rows.length, 3);
  for (const row of rows)
    t.ok(row.ms < 2000, `${row.file_name}: delivered ${Math.round(row.ms)} ms after its acceptance`);
});

t.test("the acceptance ran on the source thread's own connection", async (t) => {
  // A connection shows the last statement it ran: the source's one connection, the acceptance
  // (flow/commands/accept.ts, insertAccepted; pg_stat_activity keeps its first 1024 characters).
  const backends = await sql<{ application_name: string; query: string }>(
    server.db.url,
    `select application_name, query from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query like 'with go as (%'`,
  );
  t.ok(backends.length > 0, 'a connection ran the acceptance');
  for (const b of backends)
    t.match(b.application_name, /^pier-\d+-\d+$/, 'the acceptance ran on an actor thread connection');
});

t.test('each acceptance is logged once, from the source', async (t) => {
  const accepted = lines.filter((l) => l.msg === 'message accepted');
  t.equal(accepted.length, 3, 'one line per message');
  t.match(
    accepted.find((l) => l.file_name === 'order-1.edi'),
    {
      level: 30,
      source: 'file-poller/in',
      from: 'acme',
      to: 'globex',
      size_bytes: 7,
      status: String,
      message_id: String,
    },
  );
});
