/**
 * The partner list's columns (GET /partner-status): each partner's last message each way, whether
 * it can be reached, and its soonest-expiring certificate, in words and a badge each, so the
 * partners that need attention stand out without opening any.
 */
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { badge, when, type Column } from '../components/data.js';

type Row = Record<string, unknown>;
interface LastMessage {
  message_id: string;
  status: string;
  at: string;
}
interface Reachability {
  state: 'reachable' | 'unreachable' | 'untried';
  at: string | null;
  target: string | null;
  detail: string | null;
  alert_standing: boolean;
}
interface SoonestCertificate {
  id: number;
  common_name: string;
  not_after: string;
  days_left: number;
  expiry: 'ok' | 'expiring' | 'expired';
}

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
    <a href="${uiPrefix}/certificates/${String(c.id)}">${c.common_name || `certificate ${c.id}`}</a>
    <small>until ${when(c.not_after)}${count > 1 ? html`, soonest of ${count}` : ''}</small>`;
}

export const partnerStatusColumns: Column<Row>[] = [
  {
    label: 'Name',
    cell: (r) =>
      html`<a href="${uiPrefix}/partners/${String(r.id)}">${String(r.name)}</a>${
          r.display_name && r.display_name !== r.name
            ? html`<br /><small>${String(r.display_name)}</small>`
            : ''
        }`,
  },
  { label: 'Last received', cell: (r) => lastMessageCell(r.last_inbound as LastMessage | null) },
  { label: 'Last sent', cell: (r) => lastMessageCell(r.last_outbound as LastMessage | null) },
  { label: 'Reachability', cell: (r) => reachabilityCell(r.reachability as Reachability) },
  {
    label: 'Certificate expiry',
    cell: (r) =>
      certificateCell(r.certificate as SoonestCertificate | null, Number(r.certificate_count ?? 0)),
  },
];
