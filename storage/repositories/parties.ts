/** Organizations and partners as the API lists and checks them, past entity hydration. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../sql.js';

export interface PartyRow {
  id: number;
  name: string;
  display_name: string;
  interchange_ids: { qualifier: string; id: string }[];
  /** Partners only. */
  x12_acknowledgement?: string;
  edifact_acknowledgement?: string;
  acknowledgement_due_hours?: number;
  speaks_for?: string[];
  /** What pier writes in the envelopes it builds for the partner (api/schemas/edi-envelope.ts); `{}` before it was set. */
  edi_envelope?: Record<string, unknown>;
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
    `select t.*, count(*) over () as total from ${table} t ${filter} order by name limit ? offset ?`,
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

/** A party holding one of the interchange ids asked about (its kind, name and the id it holds). */
export interface InterchangeIdHolder {
  kind: 'organization' | 'partner';
  party_id: number;
  name: string;
  qualifier: string;
  id: string;
}

/**
 * The organizations and partners that hold any of these ids (whatever the qualifier), so the
 * API can refuse an id another party already goes by: an envelope must name one party.
 */
export async function interchangeIdHolders(em: EntityManager, ids: string[]): Promise<InterchangeIdHolder[]> {
  if (ids.length === 0) return [];
  return em.getConnection().execute<InterchangeIdHolder[]>(
    `select kind, party_id, name, e->>'qualifier' as qualifier, e->>'id' as id from (
       select 'organization' as kind, id as party_id, name, interchange_ids from organization
       union all select 'partner', id, name, interchange_ids from partner) p,
       jsonb_array_elements(p.interchange_ids) e
      where e->>'id' = any(?::text[])`,
    [pgArray(ids)],
    'all',
    em.getTransactionContext(),
  );
}

/** The names among `names` that no partner has (in the entity manager's transaction). */
export async function unknownPartners(em: EntityManager, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const found = await em
    .getConnection()
    .execute<{ name: string }[]>(
      'select name from partner where name = any(?::text[])',
      [pgArray(names)],
      'all',
      em.getTransactionContext(),
    );
  const known = new Set(found.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}

/**
 * A partner renamed or removed, in every other partner's speaks_for list (names, as routes
 * name parties): renamed there too, or left out, in the same transaction as the change.
 */
export async function followPartnerInSpeaksFor(
  em: EntityManager,
  oldName: string,
  newName: string | null,
): Promise<void> {
  await em.getConnection().execute(
    `update partner set speaks_for = coalesce(
        (select jsonb_agg(case when e = ?::text then ?::text else e end order by o)
           from jsonb_array_elements_text(speaks_for) with ordinality as x(e, o)
          where e <> ?::text or ?::text is not null), '[]'::jsonb)
      where speaks_for @> jsonb_build_array(?::text)`,
    [oldName, newName, oldName, newName, oldName],
    'all',
    em.getTransactionContext(),
  );
}
