// Covers acknowledgements on a real database: a receipt moves awaiting_ack to the state the delivery table gives for ack or fail, writes the receipt's and the delivery's history lines, and leaves a delivery that was not waiting as it is.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { migratedDatabase } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import { acknowledge, awaitingAck } from './acks.js';
import { deliveryTransitions } from '../tables/delivery-states.js';
import { inTx } from '../tx.js';

let orm: Orm;
t.before(async () => {
  ({ orm } = await migratedDatabase(t));
});

const at = new Date('2026-11-22T10:00:00Z');

/** A dispatched message with one delivery in `state`; returns both ids. */
async function deliveryIn(state: string): Promise<{ messageId: string; deliveryId: number }> {
  const messageId = randomUUID();
  return inTx(orm, async (tx) => {
    await tx.all(
      `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                            accepted_by, created_at, updated_at)
       values (?, 'AwaitingReceipt', 'dispatched', 'outbound', 'acme', 'globex', 'a.edi', 'file-poller', 'in', 1, ?, ?)`,
      [messageId, at, at],
    );
    const [row] = await tx.all<{ id: string }>(
      `insert into delivery (message_id, target, state, dispatches, created_at, updated_at)
       values (?, 'to-globex', ?, 1, ?, ?) returning id`,
      [messageId, state, at, at],
    );
    return { messageId, deliveryId: Number(row!.id) };
  });
}

async function stateAndLines(deliveryId: number, messageId: string) {
  return inTx(orm, async (tx) => {
    const [d] = await tx.all<{ state: string; last_error: string; finished_at: Date | null }>(
      'select state, last_error, finished_at from delivery where id = ?',
      [deliveryId],
    );
    const [m] = await tx.all<{ status: string }>('select status from message where id = ?', [messageId]);
    const lines = await tx.all<{
      kind: string;
      old_state: string | null;
      new_state: string | null;
      text: string;
    }>('select kind, old_state, new_state, text from message_history where message_id = ? order by id', [
      messageId,
    ]);
    return { delivery: d!, status: m!.status, lines };
  });
}

t.test('a positive receipt moves awaiting_ack along the table’s ack row', async (t) => {
  const { messageId, deliveryId } = await deliveryIn(awaitingAck);
  const moved = await inTx(orm, (tx) =>
    acknowledge(tx, at, { messageId, deliveryId, ok: true, text: 'processed', receiptKind: 'mdn_received' }),
  );
  t.equal(moved, true);
  const { delivery, status, lines } = await stateAndLines(deliveryId, messageId);
  t.equal(delivery.state, deliveryTransitions.awaiting_ack.ack);
  t.equal(delivery.state, 'delivered');
  t.equal(delivery.last_error, '');
  t.ok(delivery.finished_at, 'finished');
  t.equal(status, 'Delivered', 'the message status is derived again');
  t.same(
    lines.map((l) => [l.kind, l.old_state, l.new_state]),
    [
      ['mdn_received', null, null],
      ['delivery_changed', 'awaiting_ack', 'delivered'],
      ['status_changed', null, null],
    ],
  );
});

t.test('a negative receipt moves awaiting_ack along the fail row and keeps its words', async (t) => {
  const { messageId, deliveryId } = await deliveryIn(awaitingAck);
  const text = 'The partner answered processed/error: decryption-failed';
  await inTx(orm, (tx) =>
    acknowledge(tx, at, { messageId, deliveryId, ok: false, text, receiptKind: 'mdn_refused' }),
  );
  const { delivery, status, lines } = await stateAndLines(deliveryId, messageId);
  t.equal(delivery.state, deliveryTransitions.awaiting_ack.fail);
  t.equal(delivery.state, 'failed');
  t.equal(delivery.last_error, text);
  t.equal(status, 'Error');
  t.same(
    lines.map((l) => l.kind),
    ['mdn_refused', 'delivery_changed', 'status_changed'],
  );
});

t.test('a receipt for a delivery that is not waiting is recorded and moves nothing', async (t) => {
  const { messageId, deliveryId } = await deliveryIn('delivered');
  const moved = await inTx(orm, (tx) =>
    acknowledge(tx, at, { messageId, deliveryId, ok: false, text: 'late', receiptKind: 'mdn_refused' }),
  );
  t.equal(moved, false);
  const { delivery, lines } = await stateAndLines(deliveryId, messageId);
  t.equal(delivery.state, 'delivered', 'unchanged');
  t.same(
    lines.map((l) => l.kind),
    ['mdn_refused'],
  );
});
