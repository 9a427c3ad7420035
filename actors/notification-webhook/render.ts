/**
 * The body of a notification in each format. `json` follows the Standard Webhooks payload
 * shape (`type`, `timestamp`, `data`) and is documented as the `alert` webhook in
 * /openapi.yaml; `slack` is an incoming-webhook message with Block Kit blocks; `teams` is a
 * message carrying one Adaptive Card (the shape Teams workflows and connectors accept).
 */
import type { NotificationJob, NotifiedAlert } from '../../protocol/notify-protocol.js';
import type { NotificationFormat } from './config.js';

const icon = { info: 'ℹ️', warning: '⚠️', critical: '🚨' } as const;

/** A group is as severe as its most severe alert. */
export function worst(alerts: NotifiedAlert[]): NotifiedAlert['severity'] {
  const order = ['info', 'warning', 'critical'] as const;
  return alerts.reduce(
    (w, a) => (order.indexOf(a.severity) > order.indexOf(w) ? a.severity : w),
    'info' as NotifiedAlert['severity'],
  );
}

export function headline(job: NotificationJob): string {
  const [first] = job.alerts;
  const prefix = job.test ? '[test] ' : '';
  if (job.alerts.length === 1) return `${prefix}${first!.summary}`;
  return `${prefix}${job.alerts.length} alerts ${first!.code}`;
}

/** Slack and Teams cut long texts; keep within their documented limits. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function jsonBody(job: NotificationJob, at: Date): Record<string, unknown> {
  return {
    type: job.test ? 'pier.alert.test' : 'pier.alert',
    timestamp: at.toISOString(),
    data: {
      notification_id: job.notification_id,
      test: job.test,
      severity: worst(job.alerts),
      summary: headline(job),
      alerts: job.alerts,
    },
  };
}

export function slackBody(job: NotificationJob): Record<string, unknown> {
  const severity = worst(job.alerts);
  const lines = job.alerts
    .slice(0, 20)
    .map((a) => `• *${a.code}* ${a.subject_name}: ${a.summary}${a.link ? ` <${a.link}|open>` : ''}`);
  if (job.alerts.length > 20) lines.push(`… and ${job.alerts.length - 20} more`);
  return {
    text: cut(`${icon[severity]} ${headline(job)}`, 3000),
    blocks: [
      {
        type: 'header',
        text: { type: 'plain_text', text: cut(`${icon[severity]} ${headline(job)}`, 150), emoji: true },
      },
      { type: 'section', text: { type: 'mrkdwn', text: cut(lines.join('\n'), 3000) } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: cut(`pier · ${severity} · ${job.alerts[0]!.raised_at}`, 3000) }],
      },
    ],
  };
}

export function teamsBody(job: NotificationJob): Record<string, unknown> {
  const severity = worst(job.alerts);
  const first = job.alerts[0]!;
  const body: Record<string, unknown>[] = [
    {
      type: 'TextBlock',
      text: headline(job),
      weight: 'Bolder',
      size: 'Medium',
      wrap: true,
      color: severity === 'critical' ? 'Attention' : severity === 'warning' ? 'Warning' : 'Default',
    },
    {
      type: 'FactSet',
      facts: job.alerts
        .slice(0, 20)
        .map((a) => ({ title: a.code, value: `${a.subject_name}: ${a.summary}` })),
    },
  ];
  const card: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
  };
  if (first.link) card.actions = [{ type: 'Action.OpenUrl', title: 'Open in pier', url: first.link }];
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}

export function renderBody(format: NotificationFormat, job: NotificationJob, at: Date): string {
  const body = format === 'slack' ? slackBody(job) : format === 'teams' ? teamsBody(job) : jsonBody(job, at);
  return JSON.stringify(body);
}
