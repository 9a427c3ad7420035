/**
 * What accepting a batch will store, worked out before any SQL: for each offered message its
 * direction, refusal, targets, status and stage, the deliveries to create and the history
 * lines to write. Pure, so the rules read in one place and the statement only stores them.
 */
import type { OfferedMessage } from '../../protocol/core-protocol.js';
import { deliveryStates } from '../tables/delivery-states.js';
import { targetsFor, type RouteRow } from '../tables/routing.js';
import { deriveMessage, type MessageStage, type MessageStatus } from '../tables/status.js';
import type { HistoryLine } from '../tx.js';

export type PartyKind = 'organization' | 'partner';

/** A message a source offers, as the acceptance takes it (accept.ts). */
export interface AcceptItem {
  source_type: string;
  source_name: string;
  message: OfferedMessage;
  /** The target a message sent by hand names. */
  target_hint?: string;
  /** The first history line's text, when the source has more to say than its name. */
  text?: string;
}

/** A message row as the acceptance statement inserts it. */
export interface PlannedMessage {
  id: string;
  status: MessageStatus;
  stage: MessageStage;
  direction: 'inbound' | 'outbound';
  from_party: string;
  to_party: string;
  file_name: string;
  source_type: string;
  source_name: string;
  source_key: string | null;
  target_hint: string | null;
  refusal: string | null;
  size_bytes: number;
  payload_stage: string;
  payload_content: string | null;
}

/** A history line with its place among the message's first lines (1 accepted, 2 dispatched, 3 status). */
export type OrderedLine = HistoryLine & { ord: number };

export interface AcceptancePlan {
  messages: PlannedMessage[];
  deliveries: { message_id: string; target: string }[];
  lines: OrderedLine[];
}

/** The state a new delivery starts in: the first of the table. */
export const newDeliveryState = deliveryStates[0];

/**
 * One party must be an organization and the other a partner. Outbound when `from` is an
 * organization, inbound when it is a partner; a refusal when neither reading works.
 */
export function directionOf(
  from: Set<PartyKind> | undefined,
  to: Set<PartyKind> | undefined,
): { direction: 'inbound' | 'outbound'; problem?: string } {
  const guess = from?.has('organization') ? 'outbound' : 'inbound';
  if (!from) return { direction: guess, problem: 'the sender is not an organization or partner' };
  if (!to) return { direction: guess, problem: 'the receiver is not an organization or partner' };
  if (from.has('organization') && to.has('partner')) return { direction: 'outbound' };
  if (from.has('partner') && to.has('organization')) return { direction: 'inbound' };
  const both = from.has('organization') ? 'organizations' : 'partners';
  return {
    direction: guess,
    problem: `both parties are ${both}; one must be an organization, the other a partner`,
  };
}

export function planAcceptance(
  items: AcceptItem[],
  kinds: Map<string, Set<PartyKind>>,
  routes: RouteRow[],
): AcceptancePlan {
  const plan: AcceptancePlan = { messages: [], deliveries: [], lines: [] };
  for (const item of items) {
    const m = item.message;
    const { direction, problem } = directionOf(kinds.get(m.from), kinds.get(m.to));
    const refusal =
      m.refusal ?? (problem ? `Refused: ${problem} (from ${m.from || '-'} to ${m.to || '-'})` : null);
    const targets =
      refusal || m.unrouted
        ? []
        : targetsFor(
            {
              source_name: item.source_name,
              from_party: m.from,
              to_party: m.to,
              target_hint: item.target_hint ?? null,
            },
            routes,
          );
    const { status, stage } = deriveMessage({
      accepted: false,
      refused: refusal !== null,
      states: targets.map(() => newDeliveryState),
    });
    const text = item.text ?? `Accepted from ${item.source_type} ${item.source_name}`;
    if (refusal) {
      plan.lines.push(statusLine(m.id, null, status, `${text}. ${refusal}`, 1));
    } else {
      plan.lines.push(statusLine(m.id, null, 'Received', m.unrouted ? `${text}. ${m.unrouted}` : text, 1));
      plan.lines.push(statusLine(m.id, 'Received', status, null, 3));
      for (const target of targets) plan.deliveries.push({ message_id: m.id, target });
    }
    plan.messages.push({
      id: m.id,
      status,
      stage,
      direction,
      from_party: m.from,
      to_party: m.to,
      file_name: m.file_name,
      source_type: item.source_type,
      source_name: item.source_name,
      source_key: m.source_key ?? null,
      target_hint: item.target_hint ?? null,
      refusal,
      size_bytes: m.payload.size_bytes,
      payload_stage: m.payload.stage,
      payload_content: m.payload.content ?? null,
    });
  }
  return plan;
}

function statusLine(
  messageId: string,
  oldStatus: MessageStatus | null,
  newStatus: MessageStatus,
  text: string | null,
  ord: number,
): OrderedLine {
  return {
    message_id: messageId,
    kind: 'status_changed',
    old_status: oldStatus,
    new_status: newStatus,
    ...(text !== null ? { text } : {}),
    ord,
  };
}
