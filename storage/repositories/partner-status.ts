/**
 * The partner list with each partner's standing (docs/api/parties.md, GET /partner-status): its
 * last message each way, the outcome of the last attempt to send to it, its standing
 * reachability alert, and its soonest-expiring certificate. One statement for a page, each fact
 * a lateral look-up of one row along an index (Migration0230PartnerStatus), so a page costs the
 * same whatever the number of messages: never one query per partner.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface PartnerStatusRow {
  id: number;
  name: string;
  display_name: string;
  in_id: string | null;
  in_status: string | null;
  in_at: Date | null;
  out_id: string | null;
  out_status: string | null;
  out_at: Date | null;
  /** The delivery of the last outbound message some target tried, with its target. */
  try_message_id: string | null;
  try_target: string | null;
  try_state: string | null;
  try_error: string | null;
  try_at: Date | null;
  /** The partner's latest reachability alert: partner_unreachable or partner_reachable. */
  alert_code: string | null;
  alert_at: Date | null;
  alert_summary: string | null;
  cert_id: number | null;
  cert_name: string | null;
  cert_not_after: Date | null;
  /** The partner's certificates; pier's own TLS client certificate is not the partner's. */
  cert_count: number;
}

export async function partnerStatusPage(
  em: EntityManager,
  page: { pattern?: string | undefined; limit: number; offset: number },
): Promise<{ rows: PartnerStatusRow[]; total: number }> {
  const filter = page.pattern ? 'where p.name ilike ? or p.display_name ilike ?' : '';
  const params = page.pattern ? [page.pattern, page.pattern] : [];
  const conn = em.getConnection();
  const rows = await conn.execute<(PartnerStatusRow & { total: string })[]>(
    `with page as (
       select p.id, p.name, p.display_name, count(*) over () as total
         from partner p ${filter} order by p.name limit ? offset ?)
     select page.*,
            li.id as in_id, li.status as in_status, li.created_at as in_at,
            lo.id as out_id, lo.status as out_status, lo.created_at as out_at,
            lt.message_id as try_message_id, lt.target as try_target, lt.state as try_state,
            lt.last_error as try_error, lt.updated_at as try_at,
            la.code as alert_code, la.raised_at as alert_at, la.summary as alert_summary,
            lc.id as cert_id, lc.common_name as cert_name, lc.not_after as cert_not_after,
            lcn.n::int as cert_count
       from page
       left join lateral (
         select m.id, m.status, m.created_at from message m
          where m.direction = 'inbound' and m.from_party = page.name
          order by m.created_at desc limit 1) li on true
       left join lateral (
         select m.id, m.status, m.created_at from message m
          where m.direction = 'outbound' and m.to_party = page.name
          order by m.created_at desc limit 1) lo on true
       left join lateral (
         select d.message_id, d.target, d.state, d.last_error, d.updated_at
           from message m join delivery d on d.message_id = m.id
          where m.direction = 'outbound' and m.to_party = page.name and d.attempts > 0
          order by m.created_at desc, d.updated_at desc limit 1) lt on true
       left join lateral (
         select a.code, a.raised_at, a.summary from alert a
          where a.code in ('partner_unreachable', 'partner_reachable')
            and a.details->>'partner' = page.name
          order by a.raised_at desc, a.id desc limit 1) la on true
       left join lateral (
         select c.id, c.common_name, c.not_after
           from as2_profile_certificate pc join certificate c on c.id = pc.certificate_id
          where pc.business_partner_id = page.id and pc.field <> 'tls_client_certificate_id'
          order by c.not_after, c.id limit 1) lc on true
       left join lateral (
         select count(distinct pc.certificate_id) as n from as2_profile_certificate pc
          where pc.business_partner_id = page.id and pc.field <> 'tls_client_certificate_id') lcn on true
      order by page.name`,
    [...params, page.limit, page.offset],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const [count] = await conn.execute<{ n: string }[]>(
      `select count(*) as n from partner p ${filter}`,
      params,
    );
    total = Number(count?.n ?? 0);
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}
