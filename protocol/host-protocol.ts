/**
 * What the supervisor tells or asks an actor. The questions are one table of request and
 * answer schema, as the actors' questions to the core are (as2-protocol.ts), so the supervisor
 * gets a typed answer, checked on arrival.
 */
import { MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { As2Material } from './as2-protocol.js';

/**
 * Finish or hand back the work in hand, release resources, then answer `stopped`. `within_ms`:
 * the time the supervisor gives before it ends the thread; an actor that serves connections
 * ends those left a little before, so it stops cleanly instead of being ended by force.
 */
const StopRequest = z.object({
  type: z.literal('stop'),
  within_ms: z.number().int().nonnegative().optional(),
});
const Stopped = z.object({ type: z.literal('stopped') });

export const checkSteps = ['certificates', 'proxy', 'resolve', 'connect', 'tls', 'http'] as const;
export type CheckStep = (typeof checkSteps)[number];

const StepResult = z.object({
  status: z.enum(['ok', 'failed', 'skipped']),
  detail: z.string(),
  duration_ms: z.number().int(),
});
export type StepResult = z.infer<typeof StepResult>;

/**
 * Check the way to a partner as this sender would send to it, without sending a message: what
 * the partner's AS2 profile says (read by the core, which owns the database); the timeout and
 * the User-Agent are the running sender's own.
 */
export const CheckConnectionRequest = z.object({
  type: z.literal('check_connection'),
  endpoint: z.string(),
  /** The certificates the profile refers to, each named by the field that refers to it. */
  certificates: z.array(
    z.object({
      field: z.string(),
      id: z.number().int(),
      subject: z.string(),
      not_before: z.date(),
      not_after: z.date(),
    }),
  ),
  /** The profile's TLS trust, verification and client certificate (key as PKCS#8 PEM). */
  tls: z.object({
    tls_trusted: z.array(z.string()),
    tls_verify: z.boolean(),
    tls_client: As2Material.nullable(),
  }),
  /** Authorization and extra headers of the profile, sent as the sender sends them. */
  headers: z.record(z.string(), z.string()),
  /** The core's clock, against which the certificates' dates are judged. */
  now: z.date(),
});
export type CheckConnectionRequest = z.infer<typeof CheckConnectionRequest>;

export const CheckAnswer = z.object({
  ok: z.boolean(),
  steps: z.object({
    certificates: StepResult,
    proxy: StepResult,
    resolve: StepResult,
    connect: StepResult,
    tls: StepResult,
    http: StepResult,
  }),
  /** `<step>: <detail>` of the first step that failed; only when ok is false. */
  problem: z.string().optional(),
});
export type CheckAnswer = z.infer<typeof CheckAnswer>;

const hostQuestions = {
  stop: { request: StopRequest, answer: Stopped },
  check_connection: { request: CheckConnectionRequest, answer: CheckAnswer },
} as const;
type HostQuestions = typeof hostQuestions;

export const HostRequest = z.discriminatedUnion('type', [StopRequest, CheckConnectionRequest]);
export type HostRequest = z.infer<typeof HostRequest>;
/** The answer to one kind of question. */
export type HostAnswerTo<R extends HostRequest> = z.infer<HostQuestions[R['type']]['answer']>;

/** Checks an actor's answer against the schema of the question it answers. */
export function parseHostAnswer<R extends HostRequest>(request: R, answer: unknown): HostAnswerTo<R> {
  return hostQuestions[request.type].answer.parse(answer) as HostAnswerTo<R>;
}

/** Deliveries are queued for this target: claim some when there is room. */
const WorkEvent = z.object({ type: z.literal('work') });

const channelPort = z.custom<MessagePort>((value) => value instanceof MessagePort, 'a MessagePort');

/** A source's end of a hand-off channel to `target`, a running target of this process (handoff-protocol.ts). */
const HandoffToEvent = z.object({ type: z.literal('handoff_to'), target: z.string(), port: channelPort });

/** A target's end of a hand-off channel from a source of this process. */
const HandoffFromEvent = z.object({ type: z.literal('handoff_from'), source: z.string(), port: channelPort });

export const HostEvent = z.discriminatedUnion('type', [WorkEvent, HandoffToEvent, HandoffFromEvent]);
export type HostEvent = z.infer<typeof HostEvent>;
