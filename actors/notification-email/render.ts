/**
 * The email of a notification: a subject line with the severity and the headline (the webhook's,
 * so every channel says the same), and a text and an HTML part listing each alert with its
 * summary, subject, time and the link to the web UI page where it is seen and fixed.
 */
import type { NotificationJob, NotifiedAlert } from '../../protocol/notify-protocol.js';
import { headline, worst } from '../notification-webhook/render.js';
import { limits } from '../../limits/limits.js';

/** The code whose end the alert announces (`partner_reachable` ends `partner_unreachable`), if any. */
const resolvedBy = (a: NotifiedAlert) => a.resolves ?? undefined;

/**
 * How an email labels its alerts: `resolved` when every alert it lists announces the end of
 * another. An all-clear keeps the severity of what it ends, so it reaches the same notifiers, but
 * is not labelled as that severity: mail labelled `[critical]` should always need a person.
 */
export function emailSeverity(alerts: NotifiedAlert[]): 'resolved' | NotifiedAlert['severity'] {
  return alerts.every((a) => resolvedBy(a) !== undefined) ? 'resolved' : worst(alerts);
}

/** An alert's label in the list: its severity, or what it resolves. */
const labelOf = (a: NotifiedAlert) => {
  const ends = resolvedBy(a);
  return ends ? `resolved: ends ${a.severity} ${ends}` : a.severity;
};

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Line breaks in a header would start another header: a subject is one line. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

function textOf(a: NotifiedAlert): string {
  return [
    `[${labelOf(a)}] ${a.code}: ${a.summary}`,
    `  Subject: ${a.subject_kind} ${a.subject_name}`,
    `  Raised: ${a.raised_at}`,
    ...(a.link ? [`  Open: ${a.link}`] : []),
  ].join('\n');
}

function htmlOf(a: NotifiedAlert): string {
  const link = a.link ? `<br><a href="${escape(a.link)}">Open in pier</a>` : '';
  return (
    `<li><strong>[${escape(labelOf(a))}] ${escape(a.code)}</strong>: ${escape(a.summary)}<br>` +
    `<small>${escape(a.subject_kind)} ${escape(a.subject_name)} · ${escape(a.raised_at)}</small>${link}</li>`
  );
}

export function renderEmail(job: NotificationJob, prefix: string): RenderedEmail {
  const severity = emailSeverity(job.alerts);
  const line = oneLine(`${prefix ? `${prefix} ` : ''}[${severity}] ${headline(job)}`);
  const subject =
    line.length <= limits.emailSubjectMaxChars ? line : `${line.slice(0, limits.emailSubjectMaxChars - 1)}…`;
  const intro = job.test
    ? 'This is a test notification from pier: the email notifier works.'
    : job.alerts.length === 1
      ? 'pier raised an alert:'
      : `pier raised ${job.alerts.length} alerts of one kind:`;
  return {
    subject,
    text: `${intro}\n\n${job.alerts.map(textOf).join('\n\n')}\n`,
    html:
      `<!doctype html><html><body><p>${escape(intro)}</p>` +
      `<ul>${job.alerts.map(htmlOf).join('')}</ul></body></html>`,
  };
}
