/**
 * Alerts go nowhere until a notifier exists: the dashboard and the notification log say so, and
 * link to making one (an e-mail or a webhook notifier), instead of an empty log that looks calm.
 */
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';

export const notifierTypes = ['notification-email', 'notification-webhook'] as const;

/** A notice when none of `instances` (GET /services) is an enabled notifier; nothing otherwise. */
export function notifierNotice(instances: readonly { type: string; status: string }[]): Html | string {
  const notifiers = instances.filter(
    (i) => notifierTypes.some((t) => t === i.type) && i.status !== 'disabled',
  );
  if (notifiers.length > 0) return '';
  return html`<div class="alert alert-info" role="status" id="no-notifier">
    <strong>No notifier is set up:</strong> alerts are shown in the web UI only, and nobody is told when a
    partner is down or a certificate expires. Set up
    <a href="${uiPrefix}/instances/new/notification-email">an e-mail notifier</a> or
    <a href="${uiPrefix}/instances/new/notification-webhook">a webhook</a> (Slack, Teams or your own).
  </div>`;
}
