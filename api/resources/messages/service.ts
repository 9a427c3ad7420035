/** Reading messages and the operator actions on them (docs/api/messages.md, docs/api/lifecycles.md#delivery-state). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { redeliverWithoutRuntime } from '../../../runtime/index.js';
import {
  findMessageParts,
  findMessageView,
  findMessages,
  type CountMode,
  type MessageParts,
  type MessageRow,
} from '../../../storage/repositories/messages.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import type { HistoryRecord, MessageListQuery, MessageRecord } from '../../schemas/message.js';

function historyJson(h: MessageParts['history'][number]): HistoryRecord {
  const line: HistoryRecord = {
    id: Number(h.id),
    created_at: iso(h.created_at),
    kind: h.kind as HistoryRecord['kind'],
  };
  if (h.kind === 'status_changed') {
    line.old_status = h.old_status;
    line.new_status = h.new_status ?? '';
  }
  if (h.text !== null) line.text = h.text;
  if (h.delivery_id !== null) {
    line.delivery_id = Number(h.delivery_id);
    line.target = h.target ?? '';
  }
  if (h.kind === 'delivery_changed') {
    line.old_state = h.old_state;
    line.new_state = h.new_state ?? '';
  }
  return line;
}

export function messageJson(m: MessageRow, parts: MessageParts): MessageRecord {
  const mine = <T extends { message_id: string }>(rows: T[]) => rows.filter((r) => r.message_id === m.id);
  const payloads: MessageRecord['payloads'] = {};
  for (const p of mine(parts.payloads))
    payloads[p.stage] = { size_bytes: Number(p.size_bytes), stored_at: iso(p.stored_at) };
  if (payloads.headers && payloads.received) {
    payloads.message = {
      size_bytes: payloads.headers.size_bytes + payloads.received.size_bytes,
      stored_at: payloads.received.stored_at,
    };
  }
  return {
    id: m.id,
    status: m.status as MessageRecord['status'],
    stage: m.stage as MessageRecord['stage'],
    direction: m.direction as MessageRecord['direction'],
    from: m.from_party,
    to: m.to_party,
    file_name: m.file_name,
    source_type: m.source_type,
    source_name: m.source_name,
    refusal: m.refusal,
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
    deliveries: mine(parts.deliveries).map((d) => ({
      id: Number(d.id),
      target: d.target,
      state: d.state as MessageRecord['deliveries'][number]['state'],
      attempts: d.attempts,
      next_attempt_at: d.state === 'retrying' ? iso(d.next_attempt_at) : null,
      last_error: d.last_error,
      created_at: iso(d.created_at),
      updated_at: iso(d.updated_at),
      finished_at: iso(d.finished_at),
    })),
    history: mine(parts.history).map(historyJson),
    payloads,
    protocols: { ...protocolsOf(mine(parts.as2)[0]), ...ediOf(mine(parts.edi)[0]) },
  };
}

/** protocols.edi: the envelope of an X12 or EDIFACT payload and its functional acknowledgement. */
function ediOf(row: MessageParts['edi'][number] | undefined): MessageRecord['protocols'] {
  if (!row) return {};
  return {
    edi: {
      standard: row.standard,
      version: row.version,
      sender: { qualifier: row.sender_qualifier, id: row.sender_id },
      receiver: { qualifier: row.receiver_qualifier, id: row.receiver_id },
      interchange_control: row.interchange_control,
      group_controls: row.group_controls,
      document_types: row.document_types,
      acknowledgement: {
        // Pending: the acknowledgement sweep has not looked at the interchange yet.
        status: row.pending ? 'pending' : row.ack_status,
        due_at: row.ack_due_at === null ? null : iso(new Date(row.ack_due_at)),
        message_id: row.ack_message_id,
        problem: row.problem,
      },
    },
  };
}

/** protocols.as2 (docs/api/messages.md): the AS2 headers, MIC, protection and receipt of the message. */
function protocolsOf(row: MessageParts['as2'][number] | undefined): MessageRecord['protocols'] {
  if (!row) return {};
  const { mdn, ...info } = row.info as { mdn?: Record<string, unknown> | null };
  return {
    as2: {
      message_id: row.as2_message_id,
      as2_from: row.as2_from,
      as2_to: row.as2_to,
      ...info,
      mdn: mdn ?? null,
      receipt_message_id: (mdn?.message_id as string | null | undefined) ?? null,
    },
  };
}

/** The API's list (exact total); the web UI passes a CountMode and may get an estimated total. */
export async function listMessages(
  em: EntityManager,
  query: z.output<typeof MessageListQuery>,
  countMode: CountMode = {},
): Promise<Page<MessageRecord> & { totalEstimated: boolean }> {
  const { rows, total, totalEstimated } = await findMessages(em, query, countMode);
  const parts = await findMessageParts(
    em,
    rows.map((r) => r.id),
  );
  return {
    items: rows.map((r) => messageJson(r, parts)),
    total,
    totalEstimated,
    limit: query.limit,
    offset: query.offset,
  };
}

export async function getMessage(em: EntityManager, id: string): Promise<MessageRecord> {
  const found = await findMessageView(em, id);
  if (!found) throw notFound('Message');
  return messageJson(found.row, found.parts);
}

export async function redispatchMessage(ctx: ApiContext, caller: Caller, id: string): Promise<MessageRecord> {
  const changed = await runtimeOf(ctx).dispatcher.redispatch(id, caller.actor);

  const after = await getMessage(freshEm(ctx), id);
  await ctx.operatorActions.record(caller, {
    action: 'redispatch',
    kind: 'message',
    record_id: id,
    record_name: after.file_name,
    changes: [{ field: 'redispatch', new: changed ? 'queued again' : 'nothing to do' }],
  });
  return after;
}

/**
 * Redeliver through this process's dispatcher; a process without one (the `pier` command)
 * changes the rows itself, and the announcement wakes the server's dispatcher.
 */
async function redeliverNow(ctx: ApiContext, id: string, deliveryId: number, actor: string): Promise<void> {
  if (ctx.runtime) return ctx.runtime.dispatcher.redeliver(id, deliveryId, actor);
  await redeliverWithoutRuntime(ctx.orm, ctx.now(), id, deliveryId, actor);
}

export async function redeliverDelivery(
  ctx: ApiContext,
  caller: Caller,
  id: string,
  deliveryId: number,
): Promise<MessageRecord> {
  const before = await getMessage(freshEm(ctx), id).catch(() => undefined);
  await redeliverNow(ctx, id, deliveryId, caller.actor);
  const after = await getMessage(freshEm(ctx), id);
  const delivery = after.deliveries.find((d) => d.id === deliveryId);
  await ctx.operatorActions.record(caller, {
    action: 'redeliver',
    kind: 'message',
    record_id: id,
    record_name: after.file_name,
    changes: [
      {
        field: `deliveries.${deliveryId}.state`,
        old: before?.deliveries.find((d) => d.id === deliveryId)?.state ?? null,
        new: delivery?.state ?? null,
      },
      { field: `deliveries.${deliveryId}.target`, new: delivery?.target ?? null },
    ],
  });
  return after;
}
