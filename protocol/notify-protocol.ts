/**
 * What a notifier actor asks the core: the notifications due for it (the core keeps the
 * notification log, cooldowns and groups), and how sending each one went.
 */
import { z } from 'zod';

/** An alert as a notifier sends it and the dashboard lists it: which, what, how bad, about what. */
export const alertHeadFields = {
  alert_id: z.number().int(),
  code: z.string(),
  severity: z.enum(['info', 'warning', 'critical']),
  subject_kind: z.string(),
  subject_id: z.string(),
  subject_name: z.string(),
  summary: z.string(),
};

export const NotifiedAlert = z.object({
  ...alertHeadFields,
  details: z.record(z.string(), z.unknown()),
  dedupe_key: z.string(),
  /** Absolute address (PUBLIC_URL) where the subject can be seen; empty when there is none. */
  link: z.string(),
  raised_at: z.string(),
  /** The plugin instance the alert is about, `<type>:<name>`, when there is one. */
  instance: z.string(),
  /** The code whose end this alert announces (`partner_unreachable` for `partner_reachable`), or null. */
  resolves: z.string().nullable(),
});
export type NotifiedAlert = z.infer<typeof NotifiedAlert>;

/** One notification to send: its log row, the rows grouped into it, the alerts it lists. */
export const NotificationJob = z.object({
  notification_id: z.number().int(),
  grouped: z.array(z.number().int()),
  test: z.boolean(),
  alerts: z.array(NotifiedAlert).min(1),
});
export type NotificationJob = z.infer<typeof NotificationJob>;

export const NotifyClaimRequest = z.object({
  type: z.literal('notify_claim'),
  limit: z.number().int().min(1).max(100),
});

export const NotifyClaimResponse = z.object({
  type: z.literal('notify_claimed'),
  jobs: z.array(NotificationJob),
  /** Milliseconds until the next held notification is due (a group window ends), or null. */
  next_due_ms: z.number().int().nullable(),
});
export type NotifyClaimResponse = z.infer<typeof NotifyClaimResponse>;

export const NotificationOutcome = z.object({
  notification_id: z.number().int(),
  grouped: z.array(z.number().int()),
  ok: z.boolean(),
  attempts: z.number().int().min(1),
  error: z.string().max(2048).optional(),
});
export type NotificationOutcome = z.infer<typeof NotificationOutcome>;

export const NotifyResultRequest = NotificationOutcome.extend({ type: z.literal('notify_result') });

/** A failed attempt of a notification still being sent: the log row shows it while the retries go on. */
export const NotifyProgressRequest = z.object({
  type: z.literal('notify_progress'),
  notification_id: z.number().int(),
  attempts: z.number().int().min(1),
  error: z.string().max(2048),
});

export const NotifyDone = z.object({ type: z.literal('notify_done') });

export const NotifyRequest = z.discriminatedUnion('type', [
  NotifyClaimRequest,
  NotifyResultRequest,
  NotifyProgressRequest,
]);
export type NotifyRequest = z.infer<typeof NotifyRequest>;
export type NotifyResponse = NotifyClaimResponse | z.infer<typeof NotifyDone>;

/** Every question a notifier asks the core, each with the schema of its answer. */
export const notifyQuestions = {
  notify_claim: { request: NotifyClaimRequest, answer: NotifyClaimResponse },
  notify_result: { request: NotifyResultRequest, answer: NotifyDone },
  notify_progress: { request: NotifyProgressRequest, answer: NotifyDone },
} as const;

/** The answer to one kind of notifier question. */
export type NotifyAnswerTo<R extends NotifyRequest> = z.infer<(typeof notifyQuestions)[R['type']]['answer']>;

/** Checks an answer against the schema of the question it answers. */
export function parseNotifyAnswer<R extends NotifyRequest>(request: R, answer: unknown): NotifyAnswerTo<R> {
  return notifyQuestions[request.type].answer.parse(answer) as NotifyAnswerTo<R>;
}

/** The body of a notification in format `json` (Standard Webhooks payload: type, timestamp, data). */
export const AlertWebhookBody = z.object({
  type: z.enum(['pier.alert', 'pier.alert.test']),
  timestamp: z.string().describe('RFC 3339 time the body was made'),
  data: z.object({
    notification_id: z.number().int().describe('The notification log row (GET /notifications)'),
    test: z.boolean(),
    severity: z.enum(['info', 'warning', 'critical']).describe('The most severe of the alerts'),
    summary: z.string(),
    alerts: z.array(NotifiedAlert).describe('One alert, or the alerts of one code grouped in a window'),
  }),
});
