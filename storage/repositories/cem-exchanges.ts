/** Certificate exchanges (CEM) as the API lists and shows them: one statement each, state derived in SQL. */
import type { EntityManager } from '@mikro-orm/postgresql';

export const cemStates = ['pending', 'overdue', 'accepted', 'rejected', 'switched'] as const;
export type CemState = (typeof cemStates)[number];

export interface CemCertificateRow {
  certificate_id: number | null;
  name: string;
  issuer: string;
  serial_number: string;
  usages: string[];
  answer: 'pending' | 'accepted' | 'rejected';
  reason: string | null;
}

export interface CemExchangeRow {
  id: number;
  direction: 'inbound' | 'outbound';
  state: CemState;
  partner_id: number;
  partner: string;
  organization: string;
  request_id: string;
  respond_by: Date;
  request_message_id: string | null;
  response_message_id: string | null;
  answered_at: Date | null;
  answered_by: string | null;
  switched_at: Date | null;
  overdue_alerted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  certificates: CemCertificateRow[];
}

/**
 * pending: a certificate waits for an answer (overdue: ours, past the respond-by date);
 * switched: a partner's accepted certificate is in use; accepted: at least one accepted
 * (a partner's waits for its respond-by date); rejected: every certificate rejected.
 */
const stateSql = `case
    when exists (select 1 from cem_exchange_certificate x where x.exchange_id = e.id and x.answer = 'pending')
      then case when e.direction = 'outbound' and e.respond_by <= ? then 'overdue' else 'pending' end
    when e.switched_at is not null then 'switched'
    when exists (select 1 from cem_exchange_certificate x where x.exchange_id = e.id and x.answer = 'accepted')
      then 'accepted'
    else 'rejected' end`;

const selectSql = `select e.id, e.direction, ${stateSql} as state, e.partner_id, p.name as partner,
       o.name as organization, e.request_id, e.respond_by, e.request_message_id, e.response_message_id,
       e.answered_at, e.answered_by, e.switched_at, e.overdue_alerted_at, e.created_at, e.updated_at,
       (select coalesce(json_agg(json_build_object('certificate_id', ec.certificate_id, 'name', ec.certificate_name,
                 'issuer', ec.issuer, 'serial_number', ec.serial_decimal, 'usages', ec.usages, 'answer', ec.answer,
                 'reason', ec.reason) order by ec.position), '[]')
          from cem_exchange_certificate ec where ec.exchange_id = e.id) as certificates
  from cem_exchange e join partner p on p.id = e.partner_id join organization o on o.id = e.organization_id`;

export interface CemFilters {
  state?: CemState | undefined;
  direction?: 'inbound' | 'outbound' | undefined;
  partner?: string | undefined;
  limit: number;
  offset: number;
}

/** Open exchanges (pending, overdue) first, soonest respond-by date first; then the rest, newest first. */
export async function cemExchangesPage(
  em: EntityManager,
  now: Date,
  filters: CemFilters,
): Promise<{ rows: CemExchangeRow[]; total: number }> {
  const rows = await em.getConnection().execute<(CemExchangeRow & { total: string })[]>(
    `select *, count(*) over () as total from (${selectSql}) s
      where (?::text is null or s.state = ?) and (?::text is null or s.direction = ?) and (?::text is null or s.partner = ?)
      order by (s.state in ('pending', 'overdue')) desc,
               case when s.state in ('pending', 'overdue') then s.respond_by end, s.created_at desc, s.id desc
      limit ? offset ?`,
    [
      now,
      filters.state ?? null,
      filters.state ?? null,
      filters.direction ?? null,
      filters.direction ?? null,
      filters.partner ?? null,
      filters.partner ?? null,
      filters.limit,
      filters.offset,
    ],
  );
  return {
    rows: rows.map(({ total: _total, ...row }) => row),
    total: rows.length > 0 ? Number(rows[0]!.total) : 0,
  };
}

export async function cemExchange(
  em: EntityManager,
  now: Date,
  id: number,
): Promise<CemExchangeRow | undefined> {
  const [row] = await em.getConnection().execute<CemExchangeRow[]>(`${selectSql} where e.id = ?`, [now, id]);
  return row;
}

export async function cemPolicyOf(em: EntityManager, partnerId: number): Promise<string | undefined> {
  const [partner] = await em
    .getConnection()
    .execute<{ policy: string | null }[]>(
      'select pol.policy from partner p left join cem_partner_policy pol on pol.partner_id = p.id where p.id = ?',
      [partnerId],
    );
  return partner ? (partner.policy ?? 'manual') : undefined;
}
