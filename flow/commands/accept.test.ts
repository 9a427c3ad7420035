// Covers acceptance on a real database: a batch stores its messages with a queued delivery per
// routed target, answers each message with how many deliveries wait at its targets (this
// batch's included), announces each target with work once on `pier_work` (tagged with the
// node, sent at commit; untagged for a source's own acceptance, whose process pokes its targets
// from the notice too), and a message offered again is the earlier one, with nothing new
// stored or announced. Every way a batch is accepted behaves so: in one statement on the flow's
// connections (acceptAtOnce), planned from parties and routes read before or remembered from
// the batch before (flow-config.ts), and in a transaction (acceptBatch, for batches that bring
// more). What is remembered gives way to a change another connection commits.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { globexToAcmeRoutes, migratedFlowDatabase, offeredFile } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import type { FlowConnections } from '../../storage/flow-connections.js';
import { acceptAtOnce, acceptBatch, type AcceptItem } from './accept.js';
import { FlowConfig } from './flow-config.js';
import { inTx, workChannel } from '../tx.js';

let orm: Orm;
let flow: FlowConnections;
let url: string;
t.before(async () => {
  ({ orm, url, flow } = await migratedFlowDatabase(t));
  await globexToAcmeRoutes(orm);
});

const at = new Date('2026-11-22T10:00:00Z');
const node = 7;

const offered = (fileName: string) => offeredFile(fileName);

/** Notifications on pier_work while `work` runs, as another process would hear them. */
async function heard(work: () => Promise<void>): Promise<string[]> {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const payloads: string[] = [];
  listener.on('notification', (n) => payloads.push(n.payload ?? ''));
  await listener.query(`listen ${workChannel}`);
  await work();
  // A round trip after the commit: notifications sent before it have arrived.
  await listener.query('select 1');
  await listener.end();
  return payloads.sort();
}

const remembered = new FlowConfig();
const ways = {
  'in one statement': (items: AcceptItem[]) => acceptAtOnce(flow, at, node, items),
  'in one statement, from what the batch before read': (items: AcceptItem[]) =>
    acceptAtOnce(flow, at, node, items, remembered),
  'in a transaction': (items: AcceptItem[]) => inTx(flow, (tx) => acceptBatch(tx, at, node, items)),
};

for (const [way, accept] of Object.entries(ways)) {
  t.test(way, async (t) => {
    t.before(() => inTx(orm, (tx) => tx.all('delete from message')));

    t.test('a batch: stored, counted at its targets, each target announced once', async (t) => {
      let result: Awaited<ReturnType<typeof accept>> | undefined;
      const payloads = await heard(async () => {
        result = await accept([offered('a.edi'), offered('b.edi'), offered('c.edi')]);
      });
      t.same(payloads, [`${node}:archive`, `${node}:out`], 'one notice per target, tagged with the node');
      t.same(result!.targets.sort(), ['archive', 'out']);
      t.same(
        result!.outcomes.map((o) => [o.duplicate, o.queued]),
        [
          [false, 3],
          [false, 3],
          [false, 3],
        ],
        'each message: the three deliveries waiting at its targets',
      );
      const rows = await inTx(orm, (tx) =>
        tx.all<{ target: string; n: number }>(
          `select target, count(*)::int as n from delivery where state = 'queued' group by target order by target`,
        ),
      );
      t.same(rows, [
        { target: 'archive', n: 3 },
        { target: 'out', n: 3 },
      ]);

      const more = await accept([offered('d.edi')]);
      t.same(
        more.outcomes.map((o) => o.queued),
        [4],
        'the earlier deliveries count too',
      );
    });

    t.test('every stage keeps its own bytes: payloads and AS2 stages, empty, in the store', async (t) => {
      const bytes = (text: string) => Buffer.from(text).toString('base64');
      const withPayload = (name: string, content: string | undefined): AcceptItem => {
        const item = offered(name);
        const size = content === undefined ? 7 : Buffer.from(content, 'base64').length;
        return {
          ...item,
          message: { ...item.message, payload: { stage: 'received', size_bytes: size, content } },
        };
      };
      const as2 = withPayload('as2.edi', bytes('encrypted body'));
      as2.message.as2_record = {
        direction: 'inbound',
        as2_message_id: `<${randomUUID()}@globex>`,
        as2_from: 'GLOBEX',
        as2_to: 'ACME',
        processed: true,
        info: {},
        stages: [
          { stage: 'headers', size_bytes: 11, content: bytes('AS2-To: x\r\n') },
          { stage: 'receipt', size_bytes: 0, content: '' },
        ],
      };
      const items = [
        withPayload('hello.edi', bytes('hello')),
        withPayload('empty.edi', ''),
        withPayload('stored.edi', undefined),
        as2,
      ];
      await accept(items);
      const rows = await inTx(orm, (tx) =>
        tx.all<{ file_name: string; stage: string; size_bytes: string; content: Buffer | null }>(
          `select m.file_name, p.stage, p.size_bytes::text, p.content from payload p join message m on m.id = p.message_id
            where m.id = any(?::uuid[]) order by m.file_name, p.stage::text`,
          [`{${items.map((i) => i.message.id).join(',')}}`],
        ),
      );
      t.same(
        rows.map((r) => [r.file_name, r.stage, r.size_bytes, r.content?.toString('latin1') ?? null]),
        [
          ['as2.edi', 'headers', '11', 'AS2-To: x\r\n'],
          ['as2.edi', 'receipt', '0', ''],
          ['as2.edi', 'received', '14', 'encrypted body'],
          ['empty.edi', 'received', '0', ''],
          ['hello.edi', 'received', '5', 'hello'],
          ['stored.edi', 'received', '7', null],
        ],
      );
    });

    t.test('a message offered again is the earlier one: nothing stored, nothing announced', async (t) => {
      const first = offered('again.edi');
      const before = await accept([first]);
      let again: Awaited<ReturnType<typeof accept>> | undefined;
      const payloads = await heard(async () => {
        again = await accept([{ ...first, message: { ...first.message, id: randomUUID() } }]);
      });
      t.same(payloads, []);
      t.same(again!.targets, []);
      t.match(again!.outcomes, [{ message_id: before.outcomes[0]!.message_id, duplicate: true, queued: 0 }]);
      const [count] = await inTx(orm, (tx) =>
        tx.all<{ n: number }>(`select count(*)::int as n from message where file_name = 'again.edi'`),
      );
      t.equal(count!.n, 1);
    });
  });
}

/** A message offered with the stage a claim hands out, as the AS2 receiver offers one. */
const unpacked = (fileName: string) => offeredFile(fileName, 'unpacked');

t.test("a source's own acceptance announces its targets to every process, its own too", async (t) => {
  await inTx(orm, (tx) => tx.all('delete from message'));
  const items = [offered('s1.edi'), offered('s2.edi')];
  const payloads = await heard(async () => {
    await acceptAtOnce(flow, at, node, items, new FlowConfig(), 'all');
  });
  t.same(payloads, ['archive', 'out'], 'one untagged notice per target');
  const viaTx = await heard(async () => {
    await inTx(flow, (tx) => acceptBatch(tx, at, node, [offered('s3.edi')], undefined, 'all'));
  });
  t.same(viaTx, ['archive', 'out'], 'the same from a transaction');
});

/** An AS2 message as the receiver offers it, processed, with the partner's Message-ID. */
function as2Offered(fileName: string, as2MessageId: string): AcceptItem {
  const item = unpacked(fileName);
  return {
    ...item,
    source_type: 'as2-receiver',
    message: {
      ...item.message,
      as2_record: {
        direction: 'inbound',
        as2_message_id: as2MessageId,
        as2_from: 'GLOBEX',
        as2_to: 'ACME',
        processed: true,
        info: {},
        stages: [{ stage: 'receipt', size_bytes: 2, content: Buffer.from('ok').toString('base64') }],
      },
    },
  };
}

t.test('a batch planned from memory sees what another connection changed since', async (t) => {
  await inTx(orm, (tx) => tx.all('delete from message'));
  const config = new FlowConfig();
  const accept = (items: AcceptItem[]) => acceptAtOnce(flow, at, node, items, config);
  const targetsOf = async (item: AcceptItem) => {
    await accept([item]);
    const rows = await inTx(orm, (tx) =>
      tx.all<{ target: string }>(`select target from delivery where message_id = ? order by target`, [
        item.message.id,
      ]),
    );
    return rows.map((r) => r.target);
  };
  t.same(await targetsOf(offered('m1.edi')), ['archive', 'out'], 'read, then remembered');
  t.same(await targetsOf(offered('m2.edi')), ['archive', 'out'], 'from memory');

  await inTx(orm, (tx) =>
    tx.all(`insert into route (name, source_plugin, from_party, to_party, target_plugin)
            values ('to-audit', 'in', 'globex', 'acme', 'audit')`),
  );
  t.same(await targetsOf(offered('m3.edi')), ['archive', 'audit', 'out'], 'a route added applies');
  await inTx(orm, (tx) => tx.all(`delete from route where name = 'to-audit'`));
  t.same(await targetsOf(offered('m4.edi')), ['archive', 'out'], 'a route removed no longer applies');

  const stranger = offered('m5.edi');
  stranger.message.from = 'initech';
  const refused = await accept([stranger]);
  t.match(refused.outcomes, [{ status: 'Refused' }], 'initech is not a partner yet');
  await inTx(orm, async (tx) => {
    await tx.all(`insert into partner (name) values ('initech')`);
    await tx.all(`insert into route (name, source_plugin, from_party, to_party, target_plugin)
                  values ('initech-out', 'in', 'initech', 'acme', 'out')`);
  });
  const known = offered('m6.edi');
  known.message.from = 'initech';
  t.same(await targetsOf(known), ['out'], 'a name remembered as no party is read again once it is one');
  t.teardown(() =>
    inTx(orm, async (tx) => {
      await tx.all(`delete from route where name = 'initech-out'`);
      await tx.all(`delete from message where from_party = 'initech'`);
      await tx.all(`delete from partner where name = 'initech'`);
    }),
  );

  const as2Id = `<${randomUUID()}@globex>`;
  const first = await accept([as2Offered('as2-1.edi', as2Id)]);
  const again = await accept([as2Offered('as2-2.edi', as2Id)]);
  t.match(
    again.outcomes,
    [{ message_id: first.outcomes[0]!.message_id, duplicate: true, receipt_stored: true }],
    'an AS2 duplicate is found though nothing was read before the statement',
  );
  const [stored] = await inTx(orm, (tx) =>
    tx.all<{ n: number }>(`select count(*)::int as n from message where file_name like 'as2-_.edi'`),
  );
  t.equal(stored!.n, 1, 'the duplicate stored nothing');
});
