/**
 * Routes (docs/api/routes.md). A route names instances and parties by name; it is read at every
 * dispatch, so a saved route applies to the next message without a restart.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { pluginTypeDefinitions, type PluginRole } from '../../../actors/index.js';
import { diffChanges } from '../../audit/changes.js';
import { PluginConfigSchema } from '../../../storage/entities/plugin-config.js';
import { RouteSchema, type Route } from '../../../storage/entities/route.js';
import { partyNamed } from '../../../storage/repositories/parties.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import { loadForUpdate, throwProblems } from '../../validation.js';
import {
  anyDocument,
  anyParty,
  type RouteCreate,
  type RouteRecord,
  type RouteUpdate,
} from '../../schemas/route.js';

const audited = {
  kind: 'route',
  fields: ['name', 'source_plugin', 'from', 'to', 'document_type', 'target_plugin'],
};

type RouteFields = Omit<RouteRecord, 'id' | 'created_at' | 'updated_at'>;

/** A stored route's fields as the API names them: also what a configuration file holds. */
export function routeFields(r: Route): RouteFields {
  return {
    name: r.name,
    source_plugin: r.source_plugin,
    from: r.from_party,
    to: r.to_party,
    document_type: r.document_type,
    target_plugin: r.target_plugin,
  };
}

function routeJson(r: Route): RouteRecord {
  return { id: r.id, ...routeFields(r), created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

/** A readable default name; long ones end in a hash so different routes never share one. */
function defaultRouteName(r: Omit<RouteFields, 'name'>): string {
  const word = (p: string) => (p === anyParty ? 'any' : p);
  const type = r.document_type === anyDocument ? '' : `-${r.document_type.toLowerCase()}`;
  const name = `${r.source_plugin}-${word(r.from)}-${word(r.to)}${type}-${r.target_plugin}`;
  if (name.length <= 64) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 55)}-${hash}`;
}

export async function listRoutes(
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<RouteRecord>> {
  const [rows, total] = await em.findAndCount(RouteSchema, {}, { orderBy: { name: 'asc' }, ...page });
  return { items: rows.map(routeJson), total, ...page };
}

async function load(em: EntityManager, id: number): Promise<Route> {
  const route = await em.findOne(RouteSchema, { id });
  if (!route) throw notFound('Route');
  return route;
}

export async function getRoute(em: EntityManager, id: number): Promise<RouteRecord> {
  return routeJson(await load(em, id));
}

const roleWords: Record<PluginRole, string> = {
  source: 'source (file-poller or as2-receiver)',
  target: 'target (file-writer, http-poster or as2-sender)',
  notifier: 'notifier',
};

async function instanceProblem(
  em: EntityManager,
  name: string,
  role: PluginRole,
): Promise<string | undefined> {
  const config = await em.findOne(PluginConfigSchema, { name });
  if (!config) return `No plugin instance is named ${name}`;
  const def = pluginTypeDefinitions[config.type as keyof typeof pluginTypeDefinitions];
  if (def?.role !== role) return `${name} is a ${config.type}, not a ${roleWords[role]}`;
  return undefined;
}

/**
 * The references of a route, each checked when present (a property the body got wrong is
 * absent), and whether another route covers it once all four are there; then its name.
 */
async function validate(
  em: EntityManager,
  r: Partial<RouteFields>,
  exceptId?: number,
  bodyProblems: Record<string, string> = {},
): Promise<void> {
  const problems: Record<string, string> = { ...bodyProblems };
  const source = r.source_plugin && (await instanceProblem(em, r.source_plugin, 'source'));
  if (source) problems.source_plugin ??= source;
  const target = r.target_plugin && (await instanceProblem(em, r.target_plugin, 'target'));
  if (target) problems.target_plugin ??= target;
  for (const field of ['from', 'to'] as const) {
    const party = r[field];
    if (party !== undefined && party !== anyParty && !(await partyNamed(em, party))) {
      problems[field] ??= `No organization or partner is named ${party}`;
    }
  }
  if (isComplete(r) && Object.keys(problems).length === 0) {
    // An existing route covers this one when it sends the same source to the same target
    // for the same parties or for any, and the same document type or any.
    const covering = await em.findOne(RouteSchema, {
      source_plugin: r.source_plugin,
      target_plugin: r.target_plugin,
      from_party: { $in: [anyParty, r.from] },
      to_party: { $in: [anyParty, r.to] },
      document_type: { $in: [anyDocument, r.document_type] },
      ...(exceptId ? { id: { $ne: exceptId } } : {}),
    });
    if (covering) problems.to = `Route ${covering.name} already covers this route`;
  }
  throwProblems(problems);
  if (!isComplete(r)) return;
  const sameName = await em.findOne(RouteSchema, {
    name: r.name,
    ...(exceptId ? { id: { $ne: exceptId } } : {}),
  });
  if (sameName) throw conflict(`Route ${r.name} exists`, { name: `Route ${r.name} exists` });
}

function isComplete(r: Partial<RouteFields>): r is RouteFields {
  return (['name', 'source_plugin', 'from', 'to', 'document_type', 'target_plugin'] as const).every(
    (k) => r[k] !== undefined,
  );
}

function auditView(r: RouteFields) {
  return {
    name: r.name,
    source_plugin: r.source_plugin,
    from: r.from,
    to: r.to,
    document_type: r.document_type,
    target_plugin: r.target_plugin,
  };
}

export async function createRoute(
  ctx: ApiContext,
  caller: Caller,
  body: Partial<z.output<typeof RouteCreate>>,
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<RouteRecord> {
  const sent = {
    source_plugin: body.source_plugin,
    from: body.from,
    to: body.to,
    document_type: body.document_type ?? anyDocument,
    target_plugin: body.target_plugin,
  };
  const complete = Object.keys(bodyProblems).length === 0;
  const fields = {
    ...sent,
    name: body.name ?? (complete ? defaultRouteName(sent as Omit<RouteFields, 'name'>) : undefined),
  };
  return inTransaction(ctx, async (em) => {
    await validate(em, fields, undefined, bodyProblems);
    if (!isComplete(fields)) throw new Error('a route without all its fields passed validation');
    const route = em.create(RouteSchema, {
      name: fields.name,
      source_plugin: fields.source_plugin,
      from_party: fields.from,
      to_party: fields.to,
      document_type: fields.document_type,
      target_plugin: fields.target_plugin,
    });
    await em.flush();
    await ctx.audit.created(em, caller.actor, audited, route, auditView(fields));
    return routeJson(route);
  });
}

export async function updateRoute(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: Partial<z.output<typeof RouteUpdate>>,
  bodyProblems: Record<string, string> = {},
): Promise<RouteRecord> {
  const problems = { ...bodyProblems };
  if (body.id !== undefined && body.id !== id)
    problems.id = `Names route ${body.id}, but the path names ${id}`;
  return inTransaction(ctx, async (em) => {
    const route = await loadForUpdate(problems, () => load(em, id));
    const before = routeJson(route);
    const next: RouteFields = {
      name: body.name ?? before.name,
      source_plugin: body.source_plugin ?? before.source_plugin,
      from: body.from ?? before.from,
      to: body.to ?? before.to,
      document_type: body.document_type ?? before.document_type,
      target_plugin: body.target_plugin ?? before.target_plugin,
    };
    // With refused properties, the references sent are still checked (the stored values stand
    // for the refused ones) and everything is named in one answer.
    if (Object.keys(problems).length > 0) await validate(em, next, id, problems);
    if (diffChanges(auditView(before), auditView(next), audited.fields).length === 0) return before;
    await validate(em, next, id);
    em.assign(route, {
      name: next.name,
      source_plugin: next.source_plugin,
      from_party: next.from,
      to_party: next.to,
      document_type: next.document_type,
      target_plugin: next.target_plugin,
    });
    await em.flush();
    await ctx.audit.updated(em, caller.actor, audited, route, auditView(before), auditView(next));
    return routeJson(route);
  });
}

export async function deleteRoute(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const route = await load(em, id);
    const before = routeJson(route);
    em.remove(route);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, audited, before, auditView(before));
  });
}
