/**
 * When a partner is ready: both AS2 profiles exist, an AS2 receiver and an AS2 sender exist and
 * run, a route takes what the partner sends through a receiver to a target, and a route sends
 * the organization's files to the partner through a sender, every instance those routes name
 * running. Each check says what is missing and where it is fixed, so the wizard never calls a
 * partner ready while a part is missing, and says which (docs/decisions/wizard-readiness.md).
 */
import { uiPrefix } from '../../layout.js';
import { stepHref, type StepKey, type WizardIds } from './steps.js';

export interface Party {
  id: number;
  name: string;
  /** Its AS2 id, when it has an AS2 profile. */
  as2id?: string | undefined;
}

export interface Instance {
  type: string;
  name: string;
  /** running, stopped, error, starting, stopping, as docs/api/lifecycles.md names them. */
  status: string;
  error?: string | null | undefined;
}

export interface RouteRow {
  id: number;
  name: string;
  source_plugin: string;
  from: string;
  to: string;
  target_plugin: string;
}

export interface ReadinessInput {
  organization?: Party | undefined;
  partner?: Party | undefined;
  instances: readonly Instance[];
  routes: readonly RouteRow[];
}

export type CheckKey =
  'organization' | 'partner' | 'receiver' | 'sender' | 'inbound-route' | 'outbound-route';

export interface Check {
  key: CheckKey;
  ok: boolean;
  /** What holds, or what is missing and why it matters. */
  text: string;
  /** Where it is fixed or edited: the wizard's step, or the record's own page. */
  link: { href: string; label: string };
  /** The wizard step that makes this part. */
  step: StepKey;
}

export interface Readiness {
  ready: boolean;
  checks: Check[];
}

const targetTypes = new Set(['file-writer', 'http-poster', 'as2-sender']);
const sourceTypes = new Set(['file-poller', 'as2-receiver']);

function covers(party: string, name: string | undefined): boolean {
  return name !== undefined && (party === '*' || party === name);
}

function instanceLink(i: Instance): { href: string; label: string } {
  return { href: `${uiPrefix}/instances/${i.type}/${i.name}`, label: `Edit ${i.type} ${i.name}` };
}

function stateText(i: Instance): string {
  return i.status === 'error' && i.error ? `in error (${i.error})` : i.status;
}

/** The route that carries the partner's messages in, and the one that sends ours out. */
export function findRoutes(input: ReadinessInput): { inbound?: RouteRow; outbound?: RouteRow } {
  const typeOf = new Map(input.instances.map((i) => [i.name, i.type]));
  const org = input.organization?.name;
  const partner = input.partner?.name;
  const kind = (instance: string) => typeOf.get(instance) ?? '';
  const find = (from: string | undefined, to: string | undefined, source: Set<string>, target: Set<string>) =>
    input.routes.find(
      (r) =>
        source.has(kind(r.source_plugin)) &&
        covers(r.from, from) &&
        covers(r.to, to) &&
        target.has(kind(r.target_plugin)),
    );
  const inbound = find(partner, org, new Set(['as2-receiver']), targetTypes);
  const outbound = find(org, partner, sourceTypes, new Set(['as2-sender']));
  return { ...(inbound ? { inbound } : {}), ...(outbound ? { outbound } : {}) };
}

export function readiness(input: ReadinessInput, ids: WizardIds): Readiness {
  const checks: Check[] = [];
  const { organization: org, partner } = input;
  const byName = new Map(input.instances.map((i) => [i.name, i]));
  const { inbound, outbound } = findRoutes(input);

  checks.push({
    key: 'organization',
    step: 'organization',
    ok: Boolean(org?.as2id),
    text: !org
      ? 'No organization is chosen: your side of the exchange, with its key'
      : org.as2id
        ? `Organization ${org.name} has an AS2 profile (AS2 id ${org.as2id})`
        : `Organization ${org.name} has no AS2 profile: no AS2 id and no key to sign with`,
    link: org
      ? { href: `${uiPrefix}/organizations/${org.id}/profile`, label: `Edit the AS2 profile of ${org.name}` }
      : { href: stepHref('organization', ids), label: 'Choose or create your organization' },
  });
  checks.push({
    key: 'partner',
    step: partner ? 'profile' : 'partner',
    ok: Boolean(partner?.as2id),
    text: !partner
      ? 'No partner is chosen'
      : partner.as2id
        ? `Partner ${partner.name} has an AS2 profile (AS2 id ${partner.as2id})`
        : `Partner ${partner.name} has no AS2 profile: pier does not know its address, AS2 id or certificate`,
    link: partner
      ? {
          href: `${uiPrefix}/partners/${partner.id}/profile`,
          label: `Edit the AS2 profile of ${partner.name}`,
        }
      : { href: stepHref('partner', ids), label: 'Create the partner' },
  });

  for (const [key, type, role] of [
    ['receiver', 'as2-receiver', 'the partner cannot send to you'],
    ['sender', 'as2-sender', 'nothing can be sent to the partner'],
  ] as const) {
    // The instance the route names, else any of the type.
    const named = key === 'receiver' ? inbound?.source_plugin : outbound?.target_plugin;
    const instance = named
      ? byName.get(named)
      : (input.instances.find((i) => i.type === type && i.status === 'running') ??
        input.instances.find((i) => i.type === type));
    checks.push({
      key,
      step: 'instances',
      ok: instance?.status === 'running',
      text: !instance
        ? `No ${type} instance: ${role}`
        : instance.status === 'running'
          ? `${type} ${instance.name} is running`
          : `${type} ${instance.name} is ${stateText(instance)}: ${role} until it runs`,
      link: instance
        ? instanceLink(instance)
        : { href: stepHref('instances', ids), label: `Create an ${type}` },
    });
  }

  const orgName = org?.name ?? 'your organization';
  const partnerName = partner?.name ?? 'the partner';
  const routeCheck = (
    key: 'inbound-route' | 'outbound-route',
    route: RouteRow | undefined,
    missing: string,
    other: string | undefined,
  ): Check => {
    const end = other ? byName.get(other) : undefined;
    const endRuns = end?.status === 'running';
    return {
      key,
      step: 'routes',
      ok: Boolean(route) && endRuns,
      text: !route
        ? missing
        : !end
          ? `Route ${route.name} names ${other}, which does not exist`
          : endRuns
            ? `Route ${route.name}: ${route.source_plugin} → ${route.target_plugin}, ${route.from} to ${route.to}`
            : `Route ${route.name} uses ${end.type} ${end.name}, which is ${stateText(end)}`,
      link: route
        ? end && !endRuns
          ? instanceLink(end)
          : { href: `${uiPrefix}/routes/${route.id}`, label: `Edit route ${route.name}` }
        : { href: stepHref('routes', ids), label: 'Create the routes' },
    };
  };
  checks.push(
    routeCheck(
      'inbound-route',
      inbound,
      `No inbound route: messages from ${partnerName} to ${orgName} through an AS2 receiver would not be routed (NotRouted)`,
      inbound?.target_plugin,
    ),
  );
  checks.push(
    routeCheck(
      'outbound-route',
      outbound,
      `No outbound route: nothing sends ${orgName}'s files to ${partnerName} through an AS2 sender`,
      outbound?.source_plugin,
    ),
  );
  return { ready: checks.every((c) => c.ok), checks };
}
