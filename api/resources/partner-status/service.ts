/** GET /partner-status (docs/api/parties.md): the partner list with each partner's standing. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { partnerStatusPage, type PartnerStatusRow } from '../../../storage/repositories/partner-status.js';
import { iso, likePattern, type Page } from '../../schemas/common.js';
import { expiryWarningDays, type PartnerStatus } from '../../schemas/partner-status.js';

const dayMs = 86_400_000;

function reachabilityOf(row: PartnerStatusRow): PartnerStatus['reachability'] {
  const alertStanding = row.alert_code === 'partner_unreachable';
  const tried = row.try_state !== null;
  const failed = tried && row.try_state !== 'delivered' && row.try_error !== null && row.try_error !== '';
  const tryAt = iso(row.try_at);
  const alertAt = iso(row.alert_at);
  // A standing alert speaks for every attempt since it was raised.
  if (alertStanding) {
    return {
      state: 'unreachable',
      at: tryAt && alertAt && tryAt > alertAt ? tryAt : alertAt,
      target: row.try_target,
      detail: failed ? row.try_error : row.alert_summary,
      alert_standing: true,
    };
  }
  if (!tried) return { state: 'untried', at: null, target: null, detail: null, alert_standing: false };
  return {
    state: failed ? 'unreachable' : 'reachable',
    at: tryAt,
    target: row.try_target,
    detail: failed ? row.try_error : null,
    alert_standing: false,
  };
}

function certificateOf(row: PartnerStatusRow, now: Date): PartnerStatus['certificate'] {
  if (row.cert_id === null || row.cert_not_after === null) return null;
  const notAfter = iso(row.cert_not_after);
  const left = new Date(notAfter).getTime() - now.getTime();
  return {
    id: row.cert_id,
    common_name: row.cert_name ?? '',
    not_after: notAfter,
    days_left: Math.floor(left / dayMs),
    expiry: left <= 0 ? 'expired' : left <= expiryWarningDays * dayMs ? 'expiring' : 'ok',
  };
}

const lastMessage = (id: string | null, status: string | null, at: Date | null) =>
  id === null ? null : { message_id: id, status: status ?? '', at: iso(at)! };

export async function listPartnerStatus(
  em: EntityManager,
  now: Date,
  query: { q?: string | undefined; limit: number; offset: number },
): Promise<Page<PartnerStatus>> {
  const { rows, total } = await partnerStatusPage(em, {
    pattern: query.q ? likePattern(query.q) : undefined,
    limit: query.limit,
    offset: query.offset,
  });
  const items = rows.map((row): PartnerStatus => ({
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    last_inbound: lastMessage(row.in_id, row.in_status, row.in_at),
    last_outbound: lastMessage(row.out_id, row.out_status, row.out_at),
    reachability: reachabilityOf(row),
    certificate: certificateOf(row, now),
    certificate_count: row.cert_count,
  }));
  return { items, total, limit: query.limit, offset: query.offset };
}
