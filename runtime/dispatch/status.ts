/**
 * Message status and stage, derived from the deliveries (spec 2.7, 3.1, 3.2). One table,
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

interface Row {
  when: string;
  test(f: MessageFacts): boolean;
  status: MessageStatus;
  stage: MessageStage;
}

const any = (f: MessageFacts, ...states: DeliveryState[]) => f.states.some((s) => states.includes(s));
const allFinal = (f: MessageFacts) => f.states.every((s) => finalStates.includes(s));

/** The derivation table, in order. */
export const statusRows: readonly Row[] = [
  { when: 'not dispatched yet', test: (f) => f.accepted, status: 'Received', stage: 'accepted' },
  {
    when: 'no deliveries, refused by its source',
    test: (f) => f.states.length === 0 && f.refused,
    status: 'Refused',
    stage: 'settled',
  },
  {
    when: 'no deliveries: no route matched',
    test: (f) => f.states.length === 0,
    status: 'NotRouted',
    stage: 'settled',
  },
  {
    when: 'a delivery is retrying',
    test: (f) => any(f, 'retrying'),
    status: 'Retrying',
    stage: 'dispatched',
  },
  {
    when: 'a delivery is queued or delivering',
    test: (f) => any(f, 'queued', 'delivering'),
    status: 'InProgress',
    stage: 'dispatched',
  },
  {
    when: 'a delivery awaits its receipt',
    test: (f) => any(f, 'awaiting_ack'),
    status: 'AwaitingReceipt',
    stage: 'dispatched',
  },
  {
    when: 'all finished, one failed',
    test: (f) => allFinal(f) && any(f, 'failed'),
    status: 'Error',
    stage: 'settled',
  },
  {
    when: 'all finished, one stalled',
    test: (f) => allFinal(f) && any(f, 'stalled'),
    status: 'Stalled',
    stage: 'settled',
  },
  {
    when: 'all delivered',
    test: (f) => f.states.every((s) => s === 'delivered'),
    status: 'Delivered',
    stage: 'settled',
  },
];

export function deriveMessage(facts: MessageFacts): { status: MessageStatus; stage: MessageStage } {
  const row = statusRows.find((r) => r.test(facts));
  if (!row) throw new Error(`No status for deliveries ${facts.states.join(', ')}`);
  return { status: row.status, stage: row.stage };
}

/** Statuses counted as in flight (spec 2.13). */
export const inFlightStatuses: readonly MessageStatus[] = [
  'Received',
  'InProgress',
  'Retrying',
  'AwaitingReceipt',
];
/** Statuses counted as failed (spec 2.13); Refused is not. */
export const failedStatuses: readonly MessageStatus[] = ['Error', 'Stalled'];
