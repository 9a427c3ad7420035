/**
 * Message status and stage, derived from the deliveries (docs/api/messages.md, docs/api/lifecycles.md#message-status, docs/api/lifecycles.md#message-stage). One table,
 * documented in docs/message-status.md: the first row that matches gives the status.
 * While any delivery is still moving, the message shows the work that remains; only when
 * every delivery has finished does it show how it ended.
 */
import { finalStates, type DeliveryState } from './delivery-states.js';

export const messageStatuses = [
  'Received',
  'InProgress',
  'Retrying',
  'AwaitingReceipt',
  'Stalled',
  'Delivered',
  'NotRouted',
  'Refused',
  'Error',
] as const;
export type MessageStatus = (typeof messageStatuses)[number];

export const messageStages = ['accepted', 'dispatched', 'settled'] as const;
export type MessageStage = (typeof messageStages)[number];

export interface MessageFacts {
  /** Not dispatched yet: the source still owns it. */
  accepted: boolean;
  /** The source refused it (it could not be read or its parties are unknown). */
  refused: boolean;
  states: readonly DeliveryState[];
}

/**
 * What a row asks of a message, as data, so the same table is both a JavaScript test
 * (deriveMessage) and an SQL expression (statusSql) for statements that settle messages in
 * PostgreSQL. Every condition given must hold.
 */
interface Condition {
  accepted?: true;
  refused?: true;
  /** It has no delivery at all. */
  none?: true;
  /** At least one delivery is in one of these states. */
  some?: readonly DeliveryState[];
  /** Every delivery is in one of these states. */
  every?: readonly DeliveryState[];
}

interface Row {
  when: string;
  if: Condition;
  status: MessageStatus;
  stage: MessageStage;
}

/** The derivation table, in order. */
export const statusRows: readonly Row[] = [
  { when: 'not dispatched yet', if: { accepted: true }, status: 'Received', stage: 'accepted' },
  {
    when: 'no deliveries, refused by its source',
    if: { none: true, refused: true },
    status: 'Refused',
    stage: 'settled',
  },
  { when: 'no deliveries: no route matched', if: { none: true }, status: 'NotRouted', stage: 'settled' },
  { when: 'a delivery is retrying', if: { some: ['retrying'] }, status: 'Retrying', stage: 'dispatched' },
  {
    when: 'a delivery is queued or delivering',
    if: { some: ['queued', 'delivering'] },
    status: 'InProgress',
    stage: 'dispatched',
  },
  {
    when: 'a delivery awaits its receipt',
    if: { some: ['awaiting_ack'] },
    status: 'AwaitingReceipt',
    stage: 'dispatched',
  },
  {
    when: 'all finished, one failed',
    if: { every: finalStates, some: ['failed'] },
    status: 'Error',
    stage: 'settled',
  },
  {
    when: 'all finished, one stalled',
    if: { every: finalStates, some: ['stalled'] },
    status: 'Stalled',
    stage: 'settled',
  },
  { when: 'all delivered', if: { every: ['delivered'] }, status: 'Delivered', stage: 'settled' },
];

// Loops, not callbacks made per call: asked for every message recorded, and V8 compiles such a
// callback again after each collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
function firstHolding(facts: MessageFacts): Row | undefined {
  for (const row of statusRows) if (holds(row.if, facts)) return row;
  return undefined;
}

function holds(c: Condition, f: MessageFacts): boolean {
  return (
    (!c.accepted || f.accepted) &&
    (!c.refused || f.refused) &&
    (!c.none || f.states.length === 0) &&
    (!c.some || anyIn(f.states, c.some)) &&
    (!c.every || allIn(f.states, c.every))
  );
}

function anyIn(states: readonly DeliveryState[], among: readonly DeliveryState[]): boolean {
  for (const state of states) if (among.includes(state)) return true;
  return false;
}

function allIn(states: readonly DeliveryState[], among: readonly DeliveryState[]): boolean {
  for (const state of states) if (!among.includes(state)) return false;
  return true;
}

export function deriveMessage(facts: MessageFacts): { status: MessageStatus; stage: MessageStage } {
  const row = firstHolding(facts);
  if (!row) throw new Error(`No status for deliveries ${facts.states.join(', ')}`);
  return { status: row.status, stage: row.stage };
}

/** SQL text for the states written into a statement (they are the table's own words). */
const statesArray = (states: readonly DeliveryState[]) => `'{${states.join(',')}}'::text[]`;

function conditionSql(c: Condition, facts: { accepted: string; refused: string; states: string }): string {
  const parts = [
    ...(c.accepted ? [facts.accepted] : []),
    ...(c.refused ? [facts.refused] : []),
    ...(c.none ? [`cardinality(${facts.states}) = 0`] : []),
    ...(c.some ? [`${facts.states} && ${statesArray(c.some)}`] : []),
    ...(c.every ? [`${facts.states} <@ ${statesArray(c.every)}`] : []),
  ];
  return parts.length > 0 ? parts.join(' and ') : 'true';
}

/**
 * The derivation as two SQL expressions, status and stage, over `facts`: SQL expressions for
 * whether the message is accepted and refused (booleans) and its deliveries' states (a text[]).
 * status.test.ts holds it to deriveMessage for every combination of up to three states.
 */
export function statusSql(facts: { accepted: string; refused: string; states: string }): {
  status: string;
  stage: string;
} {
  const branches = (pick: (r: Row) => string) =>
    `case ${statusRows.map((r) => `when ${conditionSql(r.if, facts)} then '${pick(r)}'`).join(' ')} end`;
  return { status: branches((r) => r.status), stage: branches((r) => r.stage) };
}

/** Statuses counted as in flight (docs/api/stats.md). */
export const inFlightStatuses: readonly MessageStatus[] = [
  'Received',
  'InProgress',
  'Retrying',
  'AwaitingReceipt',
];
/** Statuses counted as failed (docs/api/stats.md); Refused is not. */
export const failedStatuses: readonly MessageStatus[] = ['Error', 'Stalled'];
