/** Organizations and partners as the API lists and checks them, past entity hydration. */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface PartyRow {
  id: number;
  name: string;
  display_name: string;
  created_at: Date;
  updated_at: Date;
}

/**
 * A page of organizations or partners by name, whose name or display name matches the LIKE
 * pattern when one is given, with the total: one statement (a window count) without entity
 * hydration, as lists are the hottest read of the API. A page past the end counts apart.
 */
export async function partiesPage(
  em: EntityManager,
  table: 'organization' | 'partner',
  page: { pattern?: string | undefined; limit: number; offset: number },
): Promise<{ rows: PartyRow[]; total: number }> {
  const filter = page.pattern ? 'where name ilike ? or display_name ilike ?' : '';
  const params = page.pattern ? [page.pattern, page.pattern] : [];
  const conn = em.getConnection();
  const rows = await conn.execute<(PartyRow & { total: string })[]>(
    `select id, name, display_name, created_at, updated_at, count(*) over () as total
       from ${table} ${filter} order by name limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && page.offset > 0) {
    const [count] = await conn.execute<{ n: string }[]>(
      `select count(*) as n from ${table} ${filter}`,
      params,
    );
    total = Number(count?.n ?? 0);
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

/** Whether an organization or a partner has this name (in the entity manager's transaction). */
export async function partyNamed(em: EntityManager, name: string): Promise<boolean> {
  const [row] = await em
    .getConnection()
    .execute<{ n: string }[]>(
      'select (select count(*) from organization where name = ?) + (select count(*) from partner where name = ?) as n',
      [name, name],
      'all',
      em.getTransactionContext(),
    );
  return Number(row?.n ?? 0) > 0;
}

/** The partner's name when it has an AS2 profile. */
export async function partnerWithAs2Profile(
  em: EntityManager,
  partnerId: number,
): Promise<string | undefined> {
  const [partner] = await em
    .getConnection()
    .execute<{ name: string }[]>(
      `select p.name from partner p join as2_remote_profile r on r.partner_id = p.id where p.id = ?`,
      [partnerId],
    );
  return partner?.name;
}

/** Names of the organizations with an AS2 profile, in name order. */
export async function organizationsWithAs2Profile(em: EntityManager): Promise<string[]> {
  const rows = await em
    .getConnection()
    .execute<{ name: string }[]>(
      `select o.name from organization o join as2_local_profile l on l.organization_id = o.id order by o.name`,
    );
  return rows.map((o) => o.name);
}
