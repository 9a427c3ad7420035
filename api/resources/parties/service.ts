/**
 * Organizations and partners (docs/api/parties.md). Both are parties with the same fields, so one
 * service serves both; `PartyKind` says which table, words and audit kind.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { OrganizationSchema, PartnerSchema, type Organization } from '../../../storage/entities/party.js';
import { partiesPage, type PartyRow } from '../../../storage/repositories/parties.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { iso, likePattern, type Page } from '../../schemas/common.js';
import type { PartyCreate, PartyRecord, PartyUpdate } from '../../schemas/party.js';
import { throwProblems } from '../../validation.js';

export interface PartyKind {
  entity: typeof OrganizationSchema | typeof PartnerSchema;
  /** Word for messages: "Organization not found". */
  label: 'Organization' | 'Partner';
  auditKind: 'organization' | 'partner';
}

export const organizationKind: PartyKind = {
  entity: OrganizationSchema,
  label: 'Organization',
  auditKind: 'organization',
};
export const partnerKind: PartyKind = { entity: PartnerSchema, label: 'Partner', auditKind: 'partner' };

const audited = (kind: PartyKind) => ({ kind: kind.auditKind, fields: ['name', 'display_name'] });

function partyJson(p: PartyRow): PartyRecord {
  return {
    id: p.id,
    name: p.name,
    display_name: p.display_name,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/** One query for the page and its total, without entity hydration (storage/repositories/parties.ts). */
export async function listParties(
  em: EntityManager,
  kind: PartyKind,
  query: { q?: string | undefined; limit: number; offset: number },
): Promise<Page<PartyRecord>> {
  const { rows, total } = await partiesPage(em, kind.auditKind, {
    pattern: query.q ? likePattern(query.q) : undefined,
    limit: query.limit,
    offset: query.offset,
  });
  return { items: rows.map(partyJson), total, limit: query.limit, offset: query.offset };
}

async function loadParty(em: EntityManager, kind: PartyKind, id: number): Promise<Organization> {
  const party = await em.findOne(kind.entity, { id });
  if (!party) throw notFound(kind.label);
  return party;
}

export async function getParty(em: EntityManager, kind: PartyKind, id: number): Promise<PartyRecord> {
  return partyJson(await loadParty(em, kind, id));
}

async function refuseTakenName(em: EntityManager, kind: PartyKind, name: string, exceptId?: number) {
  const taken = await em.findOne(kind.entity, { name, ...(exceptId ? { id: { $ne: exceptId } } : {}) });
  if (taken) throw conflict(`${kind.label} ${name} exists`, { name: `${kind.label} ${name} exists` });
}

export async function createParty(
  ctx: ApiContext,
  caller: Caller,
  kind: PartyKind,
  sent: Partial<z.output<typeof PartyCreate>>,
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<PartyRecord> {
  throwProblems(bodyProblems);
  const body = sent as z.output<typeof PartyCreate>;
  return inTransaction(ctx, async (em) => {
    await refuseTakenName(em, kind, body.name);
    const party = em.create(kind.entity, { name: body.name, display_name: body.display_name ?? body.name });
    await em.flush();
    await ctx.audit.created(em, caller.actor, audited(kind), party, party);
    return partyJson(party);
  });
}

export async function updateParty(
  ctx: ApiContext,
  caller: Caller,
  kind: PartyKind,
  id: number,
  body: Partial<z.output<typeof PartyUpdate>>,
  bodyProblems: Record<string, string> = {},
): Promise<PartyRecord> {
  throwProblems(
    bodyProblems,
    body.id !== undefined && body.id !== id
      ? { id: `Names ${kind.label.toLowerCase()} ${body.id}, but the path names ${id}` }
      : {},
  );
  return inTransaction(ctx, async (em) => {
    const party = await loadParty(em, kind, id);
    const before = { ...party };
    if (body.name !== undefined && body.name !== party.name) await refuseTakenName(em, kind, body.name, id);
    em.assign(party, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.display_name !== undefined ? { display_name: body.display_name } : {}),
    });
    if (await ctx.audit.updated(em, caller.actor, audited(kind), party, before, party)) await em.flush();
    return partyJson(party);
  });
}

export async function deleteParty(
  ctx: ApiContext,
  caller: Caller,
  kind: PartyKind,
  id: number,
): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const party = await loadParty(em, kind, id);
    const before = { ...party };
    em.remove(party);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, audited(kind), before, before);
  });
}
