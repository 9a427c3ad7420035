// Covers the flow's lock order on a real database: every command that moves messages and
// deliveries (accept, accept with handed deliveries, accept with control numbers taken, claim, result, release, redispatch, redeliver,
// a handed delivery recorded delivered once named or queued again, the sweeps, receipts) runs
// at once, for seconds, on several connections and on the same messages, and none of their
// statements is chosen as a deadlock victim; every delivery ends in a state of the table and
// every message's status is the one its deliveries give.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { seededRandom } from '../../test/helpers/seeded.js';
import { migratedDatabase, offeredFile } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import { FlowConnections } from '../../storage/flow-connections.js';
import { receiptsOverdue, settleAwaited } from './as2-records.js';
import { acceptAtOnce } from './accept.js';
import { acceptNumbered } from './accept-numbered.js';
import { claimBatch } from './claim-deliveries.js';
import { releaseBatch, resultBatch, resultsAtOnce, type ResultItem } from './record-results.js';
import { deliveryStates } from '../tables/delivery-states.js';
import { DeliveryNotFound, MessageNotFound, NotRedeliverable, NotRedispatchable } from '../errors.js';
import { FlowConfig } from './flow-config.js';
import { redeliver, redispatch } from './redo.js';
import { requeueHanded } from './handed.js';
import type { RetryPolicy } from '../tables/schedule.js';
import { deriveMessage } from '../tables/status.js';
import { orphanedClaims, retriesDue, stallSchedule, undispatched, unnamedHanded } from './sweeps.js';
import { direct, inTx, pgArray, type Tx } from '../tx.js';

/** How long the commands run together. */
const runMs = Number(process.env.LOCK_ORDER_RUN_MS ?? 12_000);
const targets = ['out', 'archive', 'mail'];
/** The node of the claims this test's process holds; `deadNode` holds claims of a process that died. */
const node = 1;
const deadNode = 9;
/** Retries fall due at once, so the retry sweep has work. */
const policy: RetryPolicy = { max_attempts: 3, retry_interval: 0, retry_backoff: 1, retry_max_interval: 0 };

let orm: Orm;
let partnerId = 0;
t.before(async () => {
  const db = await migratedDatabase(t);
  orm = db.orm;
  // Connections made from now on notice a circle of waits after 10 ms, not 1 s; a wait that is
  // no circle but never ends fails the test instead of hanging it.
  const name = new URL(db.url).pathname.slice(1);
  await inTx(orm, async (tx) => {
    await tx.all(`alter database "${name}" set deadlock_timeout = '10ms'`);
    await tx.all(`alter database "${name}" set lock_timeout = '5s'`);
    await tx.all(`insert into organization (name) values ('acme')`);
    await tx.all(`insert into partner (name) values ('globex')`);
    partnerId = (await tx.all<{ id: number }>(`select id from partner where name = 'globex'`))[0]!.id;
    await tx.all(
      `insert into route (name, source_plugin, from_party, to_party, target_plugin)
       select 'to-' || t, 'in', 'globex', 'acme', t from unnest(?::text[]) as t`,
      [pgArray(targets)],
    );
  });
});

let fileNumber = 0;
const offered = () => offeredFile(`f${++fileNumber}.edi`, 'unpacked');

interface Claim {
  target: string;
  delivery_id: number;
  claim: number;
  message_id: string;
}

t.test('every command at once on the same messages: no deadlock, every row valid', async (t) => {
  const pools: FlowConnections[] = [];
  /** Which command each PostgreSQL backend serves, to name them in a deadlock's report. */
  const backends = new Map<number, string>();
  const pool = (name = '') => {
    const p = new FlowConnections(orm, 1);
    pools.push(p);
    // One connection per pool, kept for the whole run (a broken one would be replaced).
    void direct(p)
      .all<{ pid: number }>('select pg_backend_pid() as pid')
      .then(([row]) => backends.set(row!.pid, name));
    return p;
  };
  t.teardown(() => Promise.all(pools.map((p) => p.close())));
  const [shown] = await direct(pool()).all<{ deadlock_timeout: string }>('show deadlock_timeout');
  t.equal(shown?.deadlock_timeout, '10ms', 'the test sessions notice a deadlock fast');

  const messages: string[] = [];
  const held: Claim[] = [];
  const handed: { message_id: string; target: string }[] = [];
  const deadlocks: string[] = [];
  const failures: string[] = [];
  const runs = new Map<string, number>();
  const end = Date.now() + runMs;
  const now = () => new Date();
  // Sweeps look far enough ahead that every queued delivery is due for its next announcement.
  const later = () => new Date(Date.now() + 3_600_000);

  /** Runs `step` over and over until the end, each run counted, deadlocks and surprises noted. */
  async function loop(name: string, seed: number, step: (random: () => number) => Promise<unknown>) {
    const random = seededRandom(seed);
    while (Date.now() < end) {
      // A step with nothing to do finishes without I/O: let the other loops run in between.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await step(random);
        runs.set(name, (runs.get(name) ?? 0) + 1);
      } catch (error) {
        const e = error as Error & { code?: string; detail?: string };
        if (e.code === '40P01') deadlocks.push(`${name}: ${e.message}\n${e.detail ?? ''}`);
        else if (
          !(
            e instanceof NotRedeliverable ||
            e instanceof NotRedispatchable ||
            e instanceof DeliveryNotFound
          ) &&
          !(e instanceof MessageNotFound)
        )
          failures.push(`${name}: ${e.code ?? ''} ${e.stack ?? e.message}`);
      }
    }
  }
  const pick = <T>(random: () => number, list: T[]): T | undefined =>
    list[Math.floor(random() * list.length)];
  const take = (random: () => number, n: number): Claim[] => {
    const out: Claim[] = [];
    while (out.length < n && held.length > 0)
      out.push(held.splice(Math.floor(random() * held.length), 1)[0]!);
    return out;
  };

  // Some messages to begin with, each with a delivery to every target.
  const seedFlow = pool();
  for (let i = 0; i < 10; i++) {
    const accepted = await acceptAtOnce(seedFlow, now(), node, [offered(), offered(), offered()]);
    messages.push(...accepted.outcomes.map((o) => o.message_id));
  }

  const acceptFlow = pool('accept');
  const lostFlow = pool('accept undispatched');
  const config = new FlowConfig();
  const workers = [
    loop('accept', 1, async () => {
      const accepted = await acceptAtOnce(acceptFlow, now(), node, [offered(), offered()], config);
      messages.push(...accepted.outcomes.map((o) => o.message_id));
    }),
    // A message built with control numbers (sent as EDI JSON), two at once on the same counters.
    ...[5, 6].map((seed) => {
      const numberedFlow = pool(`accept numbered ${seed}`);
      return loop('accept numbered', seed, async () => {
        const accepted = await inTx(numberedFlow, (tx) =>
          acceptNumbered(
            tx,
            now(),
            node,
            { partnerId, counts: { interchange: 1, group: 1, set: 1 }, max: 999_999_999 },
            async () => offered(),
          ),
        );
        messages.push(...accepted.outcomes.map((o) => o.message_id));
      });
    }),
    // A receiver that handed the document to one of the targets before its acceptance.
    (() => {
      const handedFlow = pool('accept handed');
      const handedConfig = new FlowConfig();
      return loop('accept handed', 3, async (random) => {
        const item = offered();
        const target = pick(random, targets)!;
        item.message.handed = [{ target, detail: `Writing ${item.message.file_name}` }];
        const accepted = await acceptAtOnce(handedFlow, now(), node, [item], handedConfig);
        messages.push(...accepted.outcomes.map((o) => o.message_id));
        handed.push({ message_id: item.message.id, target });
        // Held by this node's target under claim 1: its name recorded as that claim's result
        // (the result loops), or queued again when its target stopped first (the loop below).
        for (const h of accepted.outcomes[0]?.handed ?? [])
          held.push({ target: h.target, delivery_id: h.delivery_id, claim: 1, message_id: item.message.id });
      });
    })(),
    // Its target stopped before naming the file: the delivery goes back to the queue.
    (() => {
      const requeueFlow = pool('requeue handed');
      return loop('requeue handed', 4, async (random) => {
        const h = handed.splice(Math.floor(random() * handed.length), 1)[0];
        if (h)
          await inTx(requeueFlow, (tx) => requeueHanded(tx, now(), h.message_id, h.target, node, 'stopped'));
        else await new Promise((resolve) => setTimeout(resolve, 5));
      });
    })(),
    // A message accepted by a process that crashed before dispatching it.
    loop('accept undispatched', 2, async () => {
      const id = randomUUID();
      await direct(lostFlow).all(
        `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                              source_name, accepted_by, created_at, updated_at)
         values (?, 'Received', 'accepted', 'inbound', 'globex', 'acme', 'lost.edi', 'file-poller', 'in', 1, ?, ?)`,
        [id, now(), now()],
      );
      messages.push(id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }),
    ...targets.map((target, i) => {
      const claimFlow = pool(`claim ${target}`);
      return loop(`claim ${target}`, 10 + i, async (random) => {
        const by = random() < 0.2 ? deadNode : node;
        const { deliveries: claimed } = await claimBatch(
          direct(claimFlow),
          now(),
          by,
          target,
          1 + Math.floor(random() * 8),
        );
        // The dead process's claims stay with it, for the orphan sweep to take back.
        if (by === node)
          for (const d of claimed)
            held.push({ target, delivery_id: d.delivery_id, claim: d.claim, message_id: d.message.id });
      });
    }),
    ...[20, 21].map((seed) => {
      const resultFlow = pool(`result ${seed}`);
      return loop('result', seed, async (random) => {
        const items: ResultItem[] = take(random, 1 + Math.floor(random() * 6)).map((c) => {
          const r = random();
          const awaiting = {
            direction: 'outbound' as const,
            as2_message_id: `<${c.message_id}@pier>`,
            as2_from: 'acme',
            as2_to: 'globex',
            processed: null,
            // Half overdue at once, half only late (their alert due within the sweeps' hour).
            awaiting:
              c.delivery_id % 2 === 0
                ? { delivery_id: c.delivery_id, hours: 0, alert_minutes: 0 }
                : { delivery_id: c.delivery_id, hours: 2, alert_minutes: 30 },
            info: {},
            stages: [],
          };
          return {
            target: c.target,
            delivery_id: c.delivery_id,
            claim: c.claim,
            policy,
            outcome:
              r < 0.55
                ? { ok: true, detail: 'Written' }
                : r < 0.7
                  ? { ok: true, awaiting_ack: true, as2_record: awaiting }
                  : r < 0.9
                    ? { ok: false, retryable: true, error: 'Disk busy' }
                    : { ok: false, retryable: false, error: 'Refused' },
          };
        });
        if (items.length === 0) return new Promise((resolve) => setTimeout(resolve, 2));
        const atOnce = await resultsAtOnce(direct(resultFlow), now(), items);
        if (!atOnce) await inTx(resultFlow, (tx) => resultBatch(tx, now(), items));
      });
    }),
    (() => {
      const releaseFlow = pool('release');
      return loop('release', 30, async (random) => {
        const claims = take(random, 1 + Math.floor(random() * 3));
        if (claims.length > 0) await inTx(releaseFlow, (tx) => releaseBatch(tx, now(), claims, 'stopped'));
        await new Promise((resolve) => setTimeout(resolve, 5));
      });
    })(),
    (() => {
      const redoFlow = pool('redispatch');
      return loop('redispatch', 40, async (random) => {
        const id = pick(random, messages);
        if (id) await inTx(redoFlow, (tx) => redispatch(tx, now(), id, 'ops'));
      });
    })(),
    (() => {
      const redoFlow = pool('redeliver');
      return loop('redeliver', 41, async (random) => {
        const id = pick(random, messages);
        if (!id) return;
        const deliveries = await direct(redoFlow).all<{ id: string }>(
          'select id from delivery where message_id = ? order by id',
          [id],
        );
        const d = pick(random, deliveries);
        if (d) await inTx(redoFlow, (tx) => redeliver(tx, now(), id, Number(d.id), 'ops'));
      });
    })(),
    ...(
      [
        ['retries due', (tx) => retriesDue(tx, later())],
        ['stall schedule', (tx) => stallSchedule(tx, later(), 4)],
        ['orphaned claims', (tx) => orphanedClaims(tx, now(), node)],
        ['undispatched', (tx) => undispatched(tx, now(), 0)],
        ['unnamed handed', (tx) => unnamedHanded(tx, later(), node, 0)],
        ['receipts overdue', (tx) => receiptsOverdue(tx, later())],
      ] satisfies [string, (tx: Tx) => Promise<unknown>][]
    ).map(([name, sweep], i) => {
      const sweepFlow = pool(name);
      return loop(name, 50 + i, () => inTx<unknown>(sweepFlow, sweep));
    }),
    (() => {
      const ackFlow = pool('receipt');
      return loop('receipt', 60, async (random) => {
        const waiting = await direct(ackFlow).all<{ id: string; message_id: string }>(
          `select id, message_id from delivery where state = 'awaiting_ack' order by id limit 20`,
        );
        const d = pick(random, waiting);
        if (d)
          await inTx(ackFlow, (tx) =>
            settleAwaited(tx, now(), d.message_id, Number(d.id), random() < 0.7, 'Receipt'),
          );
        else await new Promise((resolve) => setTimeout(resolve, 5));
      });
    })(),
  ];
  await Promise.all(workers);

  t.comment(`runs: ${[...runs].map(([name, n]) => `${name} ${n}`).join(', ')}`);
  const named = (text: string) =>
    text.replace(/process (\d+)/gi, (all, pid: string) => backends.get(Number(pid)) ?? all);
  for (const d of deadlocks) t.comment(named(d));
  t.same(deadlocks, [], 'no statement was chosen as a deadlock victim');
  t.same(failures, [], 'no command failed otherwise');
  for (const name of [
    'accept',
    'accept handed',
    'accept numbered',
    'requeue handed',
    'claim out',
    'result',
    'release',
    'redispatch',
    'stall schedule',
  ])
    t.ok((runs.get(name) ?? 0) > 0, `${name} ran`);

  const rows = await direct(pool()).all<{ id: string; status: string; stage: string; states: string[] }>(
    `select m.id, m.status, m.stage,
            coalesce((select array_agg(d.state)::text[] from delivery d where d.message_id = m.id), '{}') as states
       from message m where m.stage <> 'accepted'`,
  );
  t.ok(rows.length >= messages.length / 2, `${rows.length} messages dispatched`);
  const invalid = rows.filter((r) =>
    r.states.some((s) => !(deliveryStates as readonly string[]).includes(s)),
  );
  t.same(invalid, [], 'every delivery is in a state of the table');
  const unsettled = rows.filter((r) => {
    const derived = deriveMessage({ accepted: false, refused: false, states: r.states as never });
    return derived.status !== r.status || derived.stage !== r.stage;
  });
  t.same(unsettled, [], "every message's status is the one its deliveries give");
});
