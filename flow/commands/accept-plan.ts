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
import type { EdiRecord } from '../../edi/record.js';

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

/** A party an interchange id names. */
export interface InterchangeParty {
  name: string;
  kind: PartyKind;
}

/**
 * Who an envelope may name. `ids`: interchange ids to the parties holding them, keyed
 * `qualifier NUL id`; an id registered without a qualifier is keyed with an empty one and
 * matches any. `speaksFor`: the partners each partner may send interchanges for (its
 * speaks_for list); a partner missing here speaks only for itself.
 */
export interface InterchangeDirectory {
  ids: Map<string, InterchangeParty>;
  speaksFor: Map<string, ReadonlySet<string>>;
}

export const emptyDirectory = (): InterchangeDirectory => ({ ids: new Map(), speaksFor: new Map() });

export const directoryKey = (qualifier: string, id: string) => `${qualifier}\u0000${id}`;

/** The directory from the rows the lookups read (interchange ids, partners' speaks_for lists). */
export function directoryOf(
  rows: { name: string; kind: PartyKind; qualifier: string; id: string }[],
  speakers: { name: string; speaks_for: string[] }[] = [],
): InterchangeDirectory {
  const directory = emptyDirectory();
  for (const r of rows) directory.ids.set(directoryKey(r.qualifier, r.id), { name: r.name, kind: r.kind });
  for (const s of speakers) directory.speaksFor.set(s.name, new Set(s.speaks_for));
  return directory;
}

/** The party an envelope's sender or receiver names: its exact id and qualifier first, then an id registered for any qualifier. */
export function partyOf(directory: InterchangeDirectory, p: { qualifier: string; id: string }) {
  return directory.ids.get(directoryKey(p.qualifier, p.id)) ?? directory.ids.get(directoryKey('', p.id));
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
  /** The payload's EDI envelope, stored beside the message (edi_interchange). */
  edi: EdiRecord | null;
  /** Why the envelope's sender was not taken (the message is refused and an alert raised), else null. */
  sender_mismatch: string | null;
}

/** A history line with its place among the message's first lines (1 accepted, 2 dispatched, 3 status). */
export type OrderedLine = HistoryLine & { ord: number };

/**
 * A delivery as the acceptance stores it: queued, or held by its target (delivering, claimed by
 * this node) when the source handed the document to it already (`text`: that delivery's history
 * line). The target records it delivered once the file has its name.
 */
export interface PlannedDelivery {
  message_id: string;
  target: string;
  state: typeof newDeliveryState | typeof handedDeliveryState;
  text: string | null;
}

export interface AcceptancePlan {
  messages: PlannedMessage[];
  deliveries: PlannedDelivery[];
  lines: OrderedLine[];
}

/** The state a new delivery starts in: the first of the table. */
export const newDeliveryState = deliveryStates[0];

/**
 * The state of a delivery whose document its target took before the acceptance (handed): claimed
 * by the accepting node, as if the target had claimed it, so that nothing says delivered before
 * the file has its name, and a crash before that leaves a claim of a dead node, which the orphan
 * sweep takes back and the queue writes from the payload store.
 */
export const handedDeliveryState = 'delivering' as const satisfies (typeof deliveryStates)[number];

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

const shown = (p: { qualifier: string; id: string }) => (p.qualifier ? `${p.qualifier}:${p.id}` : p.id);
const standardName = (edi: EdiRecord) => (edi.standard === 'x12' ? 'X12' : 'EDIFACT');

/**
 * Why an envelope's sender may not stand for the party the transport named, or null when it may.
 * A partner the source names (AS2 authenticated it by its signature; a poller's path named it)
 * speaks for itself and for the partners on its speaks_for list, nobody else: not another partner,
 * not one of our organizations. A source that names no partner (an organization's drop, an unknown
 * name) leaves the envelope to decide, as before.
 */
function senderMismatch(
  m: OfferedMessage,
  kinds: Map<string, Set<PartyKind>>,
  sender: InterchangeParty,
  directory: InterchangeDirectory,
): string | null {
  if (!kinds.get(m.from)?.has('partner')) return null;
  if (sender.kind === 'partner' && sender.name === m.from) return null;
  if (sender.kind === 'partner' && directory.speaksFor.get(m.from)?.has(sender.name)) return null;
  return (
    `its ${standardName(m.edi!)} envelope names sender ${shown(m.edi!.sender)}, ${sender.kind} ${sender.name}, ` +
    `which partner ${m.from} may not send for (not on its speaks_for list)`
  );
}

/**
 * The parties a message is between: those its EDI envelope names where the interchange ids are
 * registered (the envelope names the business parties; the transport may be a hub's or a VAN's),
 * else those the source named. A message whose target is named (sent by hand, an acknowledgement
 * pier sends) keeps the parties it names. An envelope whose sender the transport's partner may not
 * speak for decides nothing: the message stays the transport's, refused (`mismatch`).
 * `note` says what the envelope decided, for the history.
 */
function partiesOf(
  item: AcceptItem,
  kinds: Map<string, Set<PartyKind>>,
  directory: InterchangeDirectory,
): {
  from: string;
  to: string;
  fromKinds?: Set<PartyKind>;
  toKinds?: Set<PartyKind>;
  note: string;
  mismatch: string | null;
} {
  const m = item.message;
  const resolve = m.edi && !m.refusal && !item.target_hint;
  const named = resolve ? partyOf(directory, m.edi!.sender) : undefined;
  const mismatch = named ? senderMismatch(m, kinds, named, directory) : null;
  const sender = mismatch ? undefined : named;
  const receiver = resolve && !mismatch ? partyOf(directory, m.edi!.receiver) : undefined;
  const said: string[] = [];
  if (sender) said.push(`sender ${shown(m.edi!.sender)} is ${sender.kind} ${sender.name}`);
  if (receiver) said.push(`receiver ${shown(m.edi!.receiver)} is ${receiver.kind} ${receiver.name}`);
  const from = sender?.name ?? m.from;
  const to = receiver?.name ?? m.to;
  return {
    from,
    to,
    ...(sender
      ? { fromKinds: new Set([sender.kind]) }
      : kinds.has(from)
        ? { fromKinds: kinds.get(from)! }
        : {}),
    ...(receiver ? { toKinds: new Set([receiver.kind]) } : kinds.has(to) ? { toKinds: kinds.get(to)! } : {}),
    note: said.length > 0 ? `; by its ${standardName(m.edi!)} envelope, ${said.join(', ')}` : '',
    mismatch,
  };
}

export function planAcceptance(
  items: AcceptItem[],
  kinds: Map<string, Set<PartyKind>>,
  routes: RouteRow[],
  directory: InterchangeDirectory = emptyDirectory(),
): AcceptancePlan {
  const plan: AcceptancePlan = { messages: [], deliveries: [], lines: [] };
  for (const item of items) {
    const m = item.message;
    const parties = partiesOf(item, kinds, directory);
    const { direction, problem } = directionOf(parties.fromKinds, parties.toKinds);
    const refusal =
      m.refusal ??
      (parties.mismatch ? `Refused: ${parties.mismatch}` : null) ??
      (problem ? `Refused: ${problem} (from ${parties.from || '-'} to ${parties.to || '-'})` : null);
    const targets =
      refusal || m.unrouted
        ? []
        : targetsFor(
            {
              source_name: item.source_name,
              from_party: parties.from,
              to_party: parties.to,
              target_hint: item.target_hint ?? null,
              document_types: m.edi?.document_types ?? null,
            },
            routes,
          );
    const deliveries = plannedDeliveries(m, targets);
    const states: PlannedDelivery['state'][] = [];
    for (const delivery of deliveries) states.push(delivery.state);
    const { status, stage } = deriveMessage({ accepted: false, refused: refusal !== null, states });
    const text = (item.text ?? `Accepted from ${item.source_type} ${item.source_name}`) + parties.note;
    if (refusal) {
      plan.lines.push(statusLine(m.id, null, status, `${text}. ${refusal}`, 1));
    } else {
      plan.lines.push(statusLine(m.id, null, 'Received', m.unrouted ? `${text}. ${m.unrouted}` : text, 1));
      plan.lines.push(statusLine(m.id, 'Received', status, null, 3));
      plan.deliveries.push(...deliveries);
    }
    plan.messages.push({
      id: m.id,
      status,
      stage,
      direction,
      from_party: parties.from,
      to_party: parties.to,
      file_name: m.file_name,
      source_type: item.source_type,
      source_name: item.source_name,
      source_key: m.source_key ?? null,
      target_hint: item.target_hint ?? null,
      refusal,
      size_bytes: m.payload.size_bytes,
      payload_stage: m.payload.stage,
      payload_content: m.payload.content ?? null,
      edi: m.edi ?? null,
      sender_mismatch: m.refusal ? null : parties.mismatch,
    });
  }
  return plan;
}

/**
 * A route to a target the source handed the document to is held by that target; a target handed
 * that no route names now (the routes changed meanwhile) is left out: its file is dropped. Loops,
 * not callbacks made per message: V8 compiles such a callback again after each collection
 * (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
 */
function plannedDeliveries(m: AcceptItem['message'], targets: readonly string[]): PlannedDelivery[] {
  const deliveries: PlannedDelivery[] = [];
  for (const target of targets) {
    let detail: string | undefined;
    for (const handed of m.handed ?? []) if (handed.target === target) detail = handed.detail;
    deliveries.push({
      message_id: m.id,
      target,
      state: detail !== undefined ? handedDeliveryState : newDeliveryState,
      text: detail ?? null,
    });
  }
  return deliveries;
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
