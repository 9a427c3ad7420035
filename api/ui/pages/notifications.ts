/**
 * The notification log (docs/api/notifications.md, docs/api/lifecycles.md#notification-outcome): one row per alert and notifier, newest alert first,
 * with every filter of GET /notifications. The filter fields are drawn from the route's own
 * query schema, and a refused filter shows the API's message beside its field.
 */
import type { FastifyInstance } from 'fastify';
import { html } from '../html.js';
import { notifierNotice } from './notifier-notice.js';
import { uiPrefix } from '../layout.js';
import { shapeOf, specFromSchema, type FieldSpec } from '../form.js';
import { badge, listWithFilters, openPage, when, type ListRow, type UiDeps } from '../components/index.js';

/** A row of the notification log, as GET /notifications types it. */
type Row = ListRow<'/notifications', 'notifications'>;
const base = `${uiPrefix}/notifications`;

const labels: Record<string, [string, string?]> = {
  severity: ['Severity'],
  code: ['Alert code'],
  instance: ['Notifier', 'Name of a notification-webhook or notification-email instance'],
  outcome: ['Outcome'],
  from: ['From', 'RFC 3339 time or a date (UTC), inclusive'],
  to: ['To', 'RFC 3339 time or a date (whole day), exclusive'],
  include_tests: ['Test notifications', 'Left out unless shown'],
};

/** The filters of the route's query schema; an empty choice means "any" on a filter. */
function filterFields(deps: UiDeps): FieldSpec[] {
  const shape = shapeOf(deps.api.definition('GET', '/notifications')?.query);
  return Object.entries(labels)
    .filter(([name]) => name in shape)
    .map(([name, [label, hint]]) => {
      const spec = { ...specFromSchema(name, shape[name]!, label), hint };
      if (name === 'include_tests')
        spec.options = [
          { value: '', label: 'hide' },
          { value: 'true', label: 'show' },
        ];
      else if (spec.options)
        spec.options = spec.options.map((o) =>
          typeof o !== 'string' && o.value === '' ? { ...o, label: 'any' } : o,
        );
      return spec;
    });
}

const columns = [
  { label: 'Alert time', cell: (r: Row) => when(r.alert_time) },
  { label: 'Severity', cell: (r: Row) => badge(r.severity) },
  { label: 'Code', cell: (r: Row) => html`<code>${r.code}</code>` },
  {
    label: 'Summary',
    cell: (r: Row) => html`${r.summary}${r.test ? html` ${badge('test', 'info')}` : ''}`,
  },
  { label: 'Subject', cell: (r: Row) => `${r.subject_kind} ${r.subject_name}` },
  { label: 'Notifier', cell: (r: Row) => `${r.instance} (${r.format})` },
  { label: 'Outcome', cell: (r: Row) => badge(r.outcome.replace(/_/g, ' '), r.outcome) },
  { label: 'Attempts', cell: (r: Row) => `${r.attempts}` },
  { label: 'Last error', cell: (r: Row) => r.last_error || '—' },
  { label: 'Delivered', cell: (r: Row) => when(r.delivered_at) },
];

export function registerNotificationPages(app: FastifyInstance, deps: UiDeps): void {
  const filters = filterFields(deps);
  app.get(base, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const list = await listWithFilters(p, {
      api: '/notifications',
      path: base,
      listKey: 'notifications',
      caption: 'Notifications',
      columns,
      empty: 'No notifications match.',
      filterLabel: 'Filter notifications',
      filters,
    });
    const services = await p.call('GET', '/services');
    const body = html`${services.ok ? notifierNotice(services.data) : ''}
      <p class="intro">
        What each notifier did with each alert: delivered, failed (with the last error), held back by the
        cooldown or grouped with others of its code.
      </p>
      ${list.body}`;
    return p.send({ title: 'Notification log', body }, { status: list.status });
  });
}
