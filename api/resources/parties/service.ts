/**
 * Organizations and partners (docs/api/parties.md). Both are parties with the same fields, so one
 * service serves both; `PartyKind` says which table, words and audit kind.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { OrganizationSchema, PartnerSchema, type Organization } from '../../../storage/entities/party.js';
import {
  followPartnerInSpeaksFor,
  interchangeIdHolders,
  partiesPage,
  unknownPartners,
  type PartyRow,
} from '../../../storage/repositories/parties.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { iso, likePattern, type Page } from '../../schemas/common.js';
import {
  PartnerCreate as PartnerCreateSchema,
  PartnerRecord as PartnerRecordSchema,
  PartnerUpdate as PartnerUpdateSchema,
  PartyCreate,
  PartyRecord as PartyRecordSchema,
  PartyUpdate,
} from '../../schemas/party.js';
import type {
  InterchangeId,
  PartnerCreate,
  PartnerRecord,
  PartnerUpdate,
  PartyRecord,
} from '../../schemas/party.js';
import { throwProblems } from '../../validation.js';
import { envelopeSettingsOf } from '../../schemas/edi-envelope.js';

export interface PartyKind {
  /**
   * The table. A partner row is an organization's row plus its acknowledgement settings, which
   * this service sets through `partnerSettings`; typed as the common part so one service serves both.
   */
  entity: typeof OrganizationSchema;
  /** The bodies the API takes: a partner's has the acknowledgement settings. */
  createSchema: typeof PartyCreate | typeof PartnerCreateSchema;
  updateSchema: typeof PartyUpdate | typeof PartnerUpdateSchema;
  recordSchema: typeof PartyRecordSchema | typeof PartnerRecordSchema;
  /** Word for messages: "Organization not found". */
  label: 'Organization' | 'Partner';
  auditKind: 'organization' | 'partner';
}

export const organizationKind: PartyKind = {
  entity: OrganizationSchema,
  createSchema: PartyCreate,
  updateSchema: PartyUpdate,
  recordSchema: PartyRecordSchema,
  label: 'Organization',
  auditKind: 'organization',
};
export const partnerKind: PartyKind = {
  entity: PartnerSchema as unknown as typeof OrganizationSchema,
  createSchema: PartnerCreateSchema,
  updateSchema: PartnerUpdateSchema,
  recordSchema: PartnerRecordSchema,
  label: 'Partner',
  auditKind: 'partner',
};

const partnerOnly = [
  'x12_acknowledgement',
  'edifact_acknowledgement',
  'acknowledgement_due_hours',
  'speaks_for',
  'edi_envelope',
] as const;

const audited = (kind: PartyKind) => ({
  kind: kind.auditKind,
  fields: ['name', 'display_name', 'interchange_ids', ...(kind === partnerKind ? partnerOnly : [])],
});

/** What a partner's form and body hold; an organization's lacks the acknowledgement settings. */
type PartyBody = Partial<z.output<typeof PartnerCreate>>;
type PartyChanges = Partial<z.output<typeof PartnerUpdate>>;

function partyJson(p: PartyRow | Organization): PartyRecord | PartnerRecord {
  const row = p as PartyRow;
  return {
    id: p.id,
    name: p.name,
    display_name: p.display_name,
    interchange_ids: (p.interchange_ids ?? []).map((i) => ({ qualifier: i.qualifier, id: i.id })),
    ...(row.x12_acknowledgement !== undefined
      ? {
          x12_acknowledgement: row.x12_acknowledgement as PartnerRecord['x12_acknowledgement'],
          edifact_acknowledgement: row.edifact_acknowledgement as PartnerRecord['edifact_acknowledgement'],
          acknowledgement_due_hours: row.acknowledgement_due_hours!,
          speaks_for: row.speaks_for ?? [],
          edi_envelope: envelopeSettingsOf(row.edi_envelope),
        }
      : {}),
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/**
 * Refuses interchange ids another party goes by: an envelope must name one party. Two ids
 * clash when their ids are equal and their qualifiers are, or one of them matches any.
 */
async function refuseTakenInterchangeIds(
  em: EntityManager,
  kind: PartyKind,
  ids: InterchangeId[],
  exceptId?: number,
): Promise<void> {
  const holders = await interchangeIdHolders(
    em,
    ids.map((i) => i.id),
  );
  for (const wanted of ids) {
    const clash = holders.find(
      (h) =>
        h.id === wanted.id &&
        (h.qualifier === wanted.qualifier || h.qualifier === '' || wanted.qualifier === '') &&
        !(h.kind === kind.auditKind && h.party_id === exceptId),
    );
    if (clash) {
      const shown = `${wanted.qualifier === '' ? '' : `${wanted.qualifier}:`}${wanted.id}`;
      const message = `Interchange id ${shown} is an id of ${clash.kind} ${clash.name}`;
      throw conflict(message, { interchange_ids: message });
    }
  }
}

/**
 * A partner may speak only for other partners that exist: a name that is none, or its own, is
 * refused on speaks_for (an allowance for nobody would only hide a typing error).
 */
async function refuseUnknownSpeaksFor(em: EntityManager, self: string, names: string[] | undefined) {
  if (!names || names.length === 0) return;
  if (names.includes(self))
    throwProblems({ speaks_for: `A partner speaks for itself already; leave ${self} out` });
  const unknown = await unknownPartners(em, names);
  if (unknown.length > 0)
    throwProblems({
      speaks_for: `${unknown.length === 1 ? 'No partner is' : 'No partners are'} named ${unknown.join(', ')}`,
    });
}

/** The partner-only settings a body sets, for an organization none (the schema refused them). */
function partnerSettings(kind: PartyKind, body: PartyChanges) {
  if (kind !== partnerKind) return {};
  const out: Record<string, unknown> = {};
  for (const key of partnerOnly) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

/** One query for the page and its total, without entity hydration (storage/repositories/parties.ts). */
export async function listParties(
  em: EntityManager,
  kind: PartyKind,
  query: { q?: string | undefined; limit: number; offset: number },
): Promise<Page<PartyRecord | PartnerRecord>> {
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

export async function getParty(
  em: EntityManager,
  kind: PartyKind,
  id: number,
): Promise<PartyRecord | PartnerRecord> {
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
  sent: PartyBody,
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<PartyRecord> {
  throwProblems(bodyProblems);
  const body = sent as z.output<typeof PartnerCreate>;
  return inTransaction(ctx, async (em) => {
    await refuseTakenName(em, kind, body.name);
    const interchange_ids = body.interchange_ids ?? [];
    await refuseTakenInterchangeIds(em, kind, interchange_ids);
    if (kind === partnerKind) await refuseUnknownSpeaksFor(em, body.name, body.speaks_for);
    const party = em.create(kind.entity, {
      name: body.name,
      display_name: body.display_name ?? body.name,
      interchange_ids,
      ...(kind === partnerKind
        ? {
            x12_acknowledgement: body.x12_acknowledgement ?? 'none',
            edifact_acknowledgement: body.edifact_acknowledgement ?? 'none',
            acknowledgement_due_hours: body.acknowledgement_due_hours ?? 0,
            speaks_for: body.speaks_for ?? [],
            edi_envelope: body.edi_envelope ?? envelopeSettingsOf({}),
          }
        : {}),
    } as { name: string; display_name: string; interchange_ids: InterchangeId[] });
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
  body: PartyChanges,
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
    if (body.interchange_ids !== undefined)
      await refuseTakenInterchangeIds(em, kind, body.interchange_ids, id);
    if (kind === partnerKind) await refuseUnknownSpeaksFor(em, body.name ?? party.name, body.speaks_for);
    em.assign(party, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.display_name !== undefined ? { display_name: body.display_name } : {}),
      ...(body.interchange_ids !== undefined ? { interchange_ids: body.interchange_ids } : {}),
      ...partnerSettings(kind, body),
    });
    if (await ctx.audit.updated(em, caller.actor, audited(kind), party, before, party)) await em.flush();
    if (kind === partnerKind && party.name !== before.name)
      await followPartnerInSpeaksFor(em, before.name, party.name);
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
    if (kind === partnerKind) await followPartnerInSpeaksFor(em, before.name, null);
    await ctx.audit.deleted(em, caller.actor, audited(kind), before, before);
  });
}
