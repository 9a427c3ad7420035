/**
 * The partner list's columns (GET /partner-status): each partner's last message each way, whether
 * it can be reached, and its soonest-expiring certificate, in words and a badge each, so the
 * partners that need attention stand out without opening any.
 */
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { badge, when, type Column } from '../components/data.js';

import type { ListRow } from '../components/index.js';

/** A row of GET /partner-status, as its schema types it. */
type Row = ListRow<'/partner-status', 'partners'>;
type LastMessage = Row['last_inbound'];
type Reachability = Row['reachability'];
type SoonestCertificate = Row['certificate'];

/** A long error in a cell: the start shown, the whole in the title. */
function shortened(text: string, max = 120): Html {
  return text.length > max
    ? html`<span title="${text}">${text.slice(0, max)}…</span>`
    : html`<span>${text}</span>`;
}

export function lastMessageCell(last: LastMessage | null): Html | string {
  if (!last) return 'None yet';
  return html`<a href="${uiPrefix}/messages/${last.message_id}"
      >${badge(last.status, last.status.replace(/\s+/g, '').toLowerCase())}</a
    >
    ${when(last.at)}`;
}

export function reachabilityCell(r: Reachability): Html | string {
  if (r.state === 'untried') return html`${badge('Not tried yet', 'info')}`;
  const look =
    r.state === 'reachable'
      ? badge('Reachable', 'ok')
      : badge(r.alert_standing ? 'Unreachable (alert)' : 'Unreachable', 'error');
  return html`${look}
  ${when(r.at)}${r.target ? html` <small>by ${r.target}</small>` : ''}${
    r.detail ? html`<br /><small>${shortened(r.detail)}</small>` : ''
  }`;
}

export function certificateCell(c: SoonestCertificate | null, count: number): Html | string {
  if (!c) return 'None';
  const flag =
    c.expiry === 'expired'
      ? badge('Expired', 'expired')
      : c.expiry === 'expiring'
        ? badge(`Expires in ${c.days_left} day${c.days_left === 1 ? '' : 's'}`, 'expiring')
        : badge('Valid', 'valid');
  return html`${flag}
    <a href="${uiPrefix}/certificates/${c.id}">${c.common_name || `certificate ${c.id}`}</a>
    <small>until ${when(c.not_after)}${count > 1 ? html`, soonest of ${count}` : ''}</small>`;
}

export const partnerStatusColumns: Column<Row>[] = [
  {
    label: 'Name',
    cell: (r) =>
      html`<a href="${uiPrefix}/partners/${r.id}">${r.name}</a>${
          r.display_name && r.display_name !== r.name ? html`<br /><small>${r.display_name}</small>` : ''
        }`,
  },
  { label: 'Last received', cell: (r) => lastMessageCell(r.last_inbound) },
  { label: 'Last sent', cell: (r) => lastMessageCell(r.last_outbound) },
  { label: 'Reachability', cell: (r) => reachabilityCell(r.reachability) },
  { label: 'Certificate expiry', cell: (r) => certificateCell(r.certificate, r.certificate_count) },
];
