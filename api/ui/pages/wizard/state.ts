/**
 * What every wizard page reads before it draws: the organization and partner of this run with
 * their AS2 profiles, the plugin instances, the routes and what the partner still lacks. All
 * of it through the API's own routes, as the rest of the web UI reads.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiServerType } from '../../../schemas/service.js';
import type { UiRequestContext } from '../../layout.js';
import { callApi, mustCall, type UiDeps } from '../../components/request-context.js';
import { readiness, type Instance, type Party, type Readiness, type RouteRow } from './readiness.js';
import { idsOf, type WizardIds } from './steps.js';

export type Row = Record<string, unknown>;

export interface WizardState {
  ids: WizardIds;
  organization?: Row | undefined;
  localProfile?: Row | undefined;
  partner?: Row | undefined;
  remoteProfile?: Row | undefined;
  /** Organizations that have an AS2 profile, for choosing one. */
  organizations: { id: number; name: string; as2id: string }[];
  instances: Instance[];
  routes: RouteRow[];
  readiness: Readiness;
}

/** The most a list answers in one page (500, docs/api/conventions.md); a gateway's instances and routes fit. */
const wholeList = { limit: '500' };

async function optional(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  url: string,
  id: number | undefined,
): Promise<Row | undefined> {
  if (id === undefined) return undefined;
  const got = await callApi<Row>(deps, ui, request, reply, 'GET', url, { params: { id: String(id) } });
  return got.ok ? got.data : undefined;
}

function party(row: Row | undefined, profile: Row | undefined): Party | undefined {
  if (!row) return undefined;
  return { id: Number(row.id), name: String(row.name), as2id: profile ? String(profile.as2id) : undefined };
}

export async function loadState(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<WizardState> {
  const ids = idsOf(request.query);
  const [orgList, localProfiles] = await Promise.all([
    mustCall<{ organizations: Row[] }>(deps, ui, request, reply, 'GET', '/organizations', {
      query: wholeList,
    }),
    mustCall<{ profiles: Row[] }>(deps, ui, request, reply, 'GET', '/as2/local-profiles', {
      query: wholeList,
    }),
  ]);
  const profileOf = new Map(localProfiles.profiles.map((p) => [Number(p.local_organization_id), p]));
  const organizations = orgList.organizations
    .filter((o) => profileOf.has(Number(o.id)))
    .map((o) => ({
      id: Number(o.id),
      name: String(o.name),
      as2id: String(profileOf.get(Number(o.id))!.as2id),
    }));
  // With one organization there is nothing to choose: it is the one being set up.
  if (ids.organization === undefined && organizations.length === 1) ids.organization = organizations[0]!.id;

  const organization = orgList.organizations.find((o) => Number(o.id) === ids.organization);
  if (!organization) ids.organization = undefined;
  const localProfile = organization ? profileOf.get(Number(organization.id)) : undefined;
  const partner = await optional(deps, ui, request, reply, '/partners/:id', ids.partner);
  if (!partner) ids.partner = undefined;
  const remoteProfile = await optional(deps, ui, request, reply, '/as2/remote-profiles/:id', ids.partner);

  const services = deps.api.has('GET', '/services')
    ? await mustCall<Row[]>(deps, ui, request, reply, 'GET', '/services')
    : [];
  const instances = services
    .filter((s) => s.type !== apiServerType)
    .map((s) => ({
      type: String(s.type),
      name: String(s.name),
      status: String(s.status),
      error: (s.error as string | null) ?? null,
    }));
  const routes = (
    await mustCall<{ routes: RouteRow[] }>(deps, ui, request, reply, 'GET', '/routes', { query: wholeList })
  ).routes;

  const state = {
    ids,
    organization,
    localProfile,
    partner,
    remoteProfile,
    organizations,
    instances,
    routes,
  };
  return {
    ...state,
    readiness: readiness(
      {
        organization: party(organization, localProfile),
        partner: party(partner, remoteProfile),
        instances,
        routes,
      },
      ids,
    ),
  };
}
