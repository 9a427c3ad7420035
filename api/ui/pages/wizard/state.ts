/**
 * What every wizard page reads before it draws: the organization and partner of this run with
 * their AS2 profiles, the plugin instances, the routes and what the partner still lacks. All
 * of it through the API's own routes, as the rest of the web UI reads.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiServerType } from '../../../schemas/service.js';
import type { UiRequestContext } from '../../layout.js';
import { callApi, mustCall, type UiDeps } from '../../components/request-context.js';
import type { AnswerOf, ListRow } from '../../components/index.js';
import { readiness, type Instance, type Party, type Readiness, type RouteRow } from './readiness.js';
import { idsOf, type WizardIds } from './steps.js';

export type Row = Record<string, unknown>;
/** A stored certificate, as GET /certificates lists it. */
export type StoredCertificate = ListRow<'/certificates', 'certificates'>;
/** An AS2 receiver's configuration, as GET /plugins/configs/:type/:name answers it for that type. */
export type ReceiverConfig = Extract<
  AnswerOf<'GET', '/plugins/configs/:type/:name'>,
  { type: 'as2-receiver' }
>;
type Organization = AnswerOf<'GET', '/organizations/:id'>;
type LocalProfile = AnswerOf<'GET', '/as2/local-profiles/:id'>;
type Partner = AnswerOf<'GET', '/partners/:id'>;
type RemoteProfile = AnswerOf<'GET', '/as2/remote-profiles/:id'>;

export interface WizardState {
  ids: WizardIds;
  organization?: Organization | undefined;
  localProfile?: LocalProfile | undefined;
  partner?: Partner | undefined;
  remoteProfile?: RemoteProfile | undefined;
  /** Organizations that have an AS2 profile, for choosing one. */
  organizations: { id: number; name: string; as2id: string }[];
  instances: Instance[];
  routes: RouteRow[];
  readiness: Readiness;
}

/** The most a list answers in one page (500, docs/api/conventions.md); a gateway's instances and routes fit. */
const wholeList = { limit: '500' };

/** The record of `url` for `id`, when there is one and the user may read it. */
async function optional<U extends '/partners/:id' | '/as2/remote-profiles/:id'>(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  url: U,
  id: number | undefined,
): Promise<AnswerOf<'GET', U> | undefined> {
  if (id === undefined) return undefined;
  const got = await callApi(deps, ui, request, reply, 'GET', url, { params: { id: `${id}` } });
  return got.ok ? got.data : undefined;
}

function party(
  row: { id: number; name: string } | undefined,
  profile: { as2id: string } | undefined,
): Party | undefined {
  if (!row) return undefined;
  return { id: row.id, name: row.name, as2id: profile?.as2id };
}

export async function loadState(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<WizardState> {
  const ids = idsOf(request.query);
  const [orgList, localProfiles] = await Promise.all([
    mustCall(deps, ui, request, reply, 'GET', '/organizations', { query: wholeList }),
    mustCall(deps, ui, request, reply, 'GET', '/as2/local-profiles', { query: wholeList }),
  ]);
  const profileOf = new Map(localProfiles.profiles.map((p) => [p.local_organization_id, p]));
  const organizations = orgList.organizations.flatMap((o) => {
    const profile = profileOf.get(o.id);
    return profile ? [{ id: o.id, name: o.name, as2id: profile.as2id }] : [];
  });
  // With one organization there is nothing to choose: it is the one being set up.
  if (ids.organization === undefined && organizations.length === 1) ids.organization = organizations[0]!.id;

  const organization = orgList.organizations.find((o) => o.id === ids.organization);
  if (!organization) ids.organization = undefined;
  const localProfile = organization ? profileOf.get(organization.id) : undefined;
  const partner = await optional(deps, ui, request, reply, '/partners/:id', ids.partner);
  if (!partner) ids.partner = undefined;
  const remoteProfile = await optional(deps, ui, request, reply, '/as2/remote-profiles/:id', ids.partner);

  const services = deps.api.has('GET', '/services')
    ? await mustCall(deps, ui, request, reply, 'GET', '/services')
    : [];
  const instances = services
    .filter((s) => s.type !== apiServerType)
    .map((s) => ({ type: s.type, name: s.name, status: s.status, error: s.error }));
  const routes: RouteRow[] = (
    await mustCall(deps, ui, request, reply, 'GET', '/routes', { query: wholeList })
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
