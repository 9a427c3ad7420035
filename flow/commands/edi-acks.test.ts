// Covers recording what the acknowledgement sweep found, a batch in one statement, on a real database: the payloads read for a batch (the unpacked document over the received one, none for a message without), an acknowledgement received before the sweep keeps its status, and two sweeps recording overlapping batches at once record each interchange once, without a deadlock.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { migratedDatabase } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import { interchangePayloads, recordInterchanges, type FoundInterchange } from './edi-acks.js';
import { inTx } from '../tx.js';

let orm: Orm;
t.before(async () => {
  ({ orm } = await migratedDatabase(t));
});

const at = new Date('2026-11-24T10:00:00Z');

/** A message with a pending interchange (and `ackStatus` when an acknowledgement came first). */
async function interchange(ackStatus: string | null = null): Promise<string> {
  const id = randomUUID();
  await inTx(orm, async (tx) => {
    await tx.all(
      `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                            accepted_by, created_at, updated_at)
       values (?, 'Delivered', 'settled', 'outbound', 'acme', 'globex', 'a.edi', 'file-poller', 'in', 1, ?, ?)`,
      [id, at, at],
    );
    await tx.all(
      `insert into edi_interchange (message_id, standard, version, sender_qualifier, sender_id, receiver_qualifier,
                                    receiver_id, interchange_control, group_controls, document_types, ack_status)
       values (?, 'x12', '00401', 'ZZ', 'ACME', 'ZZ', 'GLOBEX', '000000001', '{1}', '{850}', ?)`,
      [id, ackStatus],
    );
  });
  return id;
}

async function row(id: string) {
  const [r] = await inTx(orm, (tx) =>
    tx.all<{
      pending: boolean;
      ack_status: string | null;
      ack_due_at: string | null;
      ack_message_id: string | null;
      problem: string | null;
    }>(
      'select pending, ack_status, ack_due_at, ack_message_id, problem from edi_interchange where message_id = ?',
      [id],
    ),
  );
  // The driver gives timestamps as PostgreSQL's text; compared as instants.
  return { ...r!, ack_due_at: r!.ack_due_at === null ? null : new Date(r!.ack_due_at).toISOString() };
}

t.test('each outcome sets its columns, in one statement for the batch', async (t) => {
  const [awaited, none, sent, unreadable, nothing, early] = await Promise.all([
    interchange(),
    interchange(),
    interchange(),
    interchange(),
    interchange(),
    interchange('acknowledged'),
  ]);
  const ack = await interchange();
  const due = new Date('2026-11-25T10:00:00Z');
  const found: FoundInterchange[] = [
    { message_id: awaited!, outcome: { kind: 'awaited', due } },
    { message_id: none!, outcome: { kind: 'awaited', due: null } },
    { message_id: sent!, outcome: { kind: 'acknowledged', ack_message_id: ack } },
    { message_id: unreadable!, outcome: { kind: 'unreadable', problem: 'no IEA segment' } },
    { message_id: nothing!, outcome: { kind: 'nothing' } },
    { message_id: early!, outcome: { kind: 'awaited', due } },
  ];
  const recorded = await inTx(orm, (tx) => recordInterchanges(tx, found));
  t.same(recorded.sort(), found.map((f) => f.message_id).sort(), 'all six recorded');
  t.match(await row(awaited!), {
    pending: false,
    ack_status: 'expected',
    ack_due_at: due.toISOString(),
    problem: null,
  });
  t.match(await row(none!), { pending: false, ack_status: null, ack_due_at: null });
  t.match(await row(sent!), { pending: false, ack_status: 'sent', ack_message_id: ack });
  t.match(await row(unreadable!), { pending: false, ack_status: null, problem: 'no IEA segment' });
  t.match(await row(nothing!), { pending: false, ack_status: null, ack_message_id: null, problem: null });
  t.match(
    await row(early!),
    { pending: false, ack_status: 'acknowledged', ack_due_at: null },
    'an acknowledgement received before the sweep keeps its status and gets no deadline',
  );
  t.same(
    await inTx(orm, (tx) => recordInterchanges(tx, found)),
    [],
    'recorded once: a second record finds none pending',
  );
  t.same(await inTx(orm, (tx) => recordInterchanges(tx, [])), [], 'an empty batch is no statement');
});

t.test('two sweeps recording overlapping batches at once record each interchange once', async (t) => {
  for (let round = 0; round < 10; round++) {
    const ids = await Promise.all(Array.from({ length: 30 }, () => interchange()));
    const batchOf = (list: string[]): FoundInterchange[] =>
      list.map((id) => ({ message_id: id, outcome: { kind: 'nothing' } }));
    // The same rows in opposite orders: without one lock order this is the classic deadlock.
    const [a, b] = await Promise.all([
      inTx(orm, (tx) => recordInterchanges(tx, batchOf(ids.slice(0, 20)))),
      inTx(orm, (tx) => recordInterchanges(tx, batchOf(ids.slice(10).reverse()))),
    ]);
    t.equal(a.length + b.length, 30, `round ${round}: every interchange recorded`);
    t.same(
      a.filter((id) => b.includes(id)),
      [],
      `round ${round}: none recorded twice`,
    );
  }
});

t.test(
  'the payloads of a batch: the unpacked document where there is one, else the received one',
  async (t) => {
    const [both, receivedOnly, none] = await Promise.all([interchange(), interchange(), interchange()]);
    await inTx(orm, async (tx) => {
      const stage = (id: string, name: string, text: string) =>
        tx.all(
          `insert into payload (message_id, stage, size_bytes, stored_at, content) values (?, ?, ?, ?, convert_to(?, 'UTF8'))`,
          [id, name, text.length, at, text],
        );
      await stage(both, 'received', 'sealed');
      await stage(both, 'unpacked', 'ISA*00');
      await stage(receivedOnly, 'received', 'ISA*01');
    });
    const payloads = await inTx(orm, (tx) => interchangePayloads(tx, [both, receivedOnly, none]));
    t.same(
      [...payloads.entries()].sort(([a], [b]) => (a === both ? -1 : b === both ? 1 : 0)),
      [
        [both, { stage: 'unpacked', content: Buffer.from('ISA*00').toString('base64') }],
        [receivedOnly, { stage: 'received', content: Buffer.from('ISA*01').toString('base64') }],
      ],
    );
    t.equal((await inTx(orm, (tx) => interchangePayloads(tx, []))).size, 0, 'nothing asked, nothing read');
  },
);
