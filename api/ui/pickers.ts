/**
 * Choices for fields that name another record, so an operator picks a certificate, an
 * instance or a party instead of typing its id or name: the lists come from the API as the
 * signed-in user sees them, and a stored value missing from them stays a choice, so opening
 * and saving a form never changes what it refers to.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pluginTypeDefinitions, isPluginType, type PluginRole } from '../../actors/index.js';
import type { FieldSpec } from './form.js';
import type { UiRequestContext } from './layout.js';
import { callApi, type UiDeps } from './components/request-context.js';
import type { AnswerOf, ListRow } from './api-answers.js';

type Option = { value: string; label: string };
/** A stored certificate, as GET /certificates lists it. */
type Certificate = ListRow<'/certificates', 'certificates'>;

export interface Choices {
  certificates: Certificate[];
  instances: { type: string; name: string; role: PluginRole }[];
  organizations: string[];
  partners: string[];
  /** Issuer URLs of the identity providers, with their display names. */
  issuers: { value: string; label: string }[];
}

/** What a form's reference fields point at. */
export type PickerKind =
  | 'certificate'
  | 'certificates'
  | 'source'
  | 'target'
  | 'as2-sender'
  | 'party'
  | 'party-or-any'
  | 'party-or-empty'
  | 'target-or-routes'
  | 'organization'
  | 'issuer';

export async function loadChoices(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  need: { certificates?: boolean; instances?: boolean; parties?: boolean; issuers?: boolean },
): Promise<Choices> {
  const choices: Choices = { certificates: [], instances: [], organizations: [], partners: [], issuers: [] };
  /** A list route's whole answer (its first 500), or undefined when it is refused or not registered. */
  const list = async <U extends string>(path: U): Promise<AnswerOf<'GET', U> | undefined> => {
    if (!deps.api.has('GET', path)) return undefined;
    const got = await callApi(deps, ui, request, reply, 'GET', path, { query: { limit: '500' } });
    return got.ok ? got.data : undefined;
  };
  if (need.certificates) choices.certificates = (await list('/certificates'))?.certificates ?? [];
  if (need.parties) {
    choices.organizations = ((await list('/organizations'))?.organizations ?? []).map((r) => r.name);
    choices.partners = ((await list('/partners'))?.partners ?? []).map((r) => r.name);
  }
  if (need.issuers)
    choices.issuers = ((await list('/oidc-providers'))?.oidc_providers ?? []).map((p) => ({
      value: p.issuer_url,
      label: `${p.display_name || p.name} (${p.issuer_url})`,
    }));
  if (need.instances && deps.api.has('GET', '/services')) {
    const got = await callApi(deps, ui, request, reply, 'GET', '/services');
    if (got.ok)
      for (const r of got.data) {
        if (isPluginType(r.type))
          choices.instances.push({ type: r.type, name: r.name, role: pluginTypeDefinitions[r.type].role });
      }
  }
  return choices;
}

/** A stored certificate as a choice: description or name, whether the key is stored, expiry. */
export function certificateChoice(c: Certificate): Option {
  const name = c.description || c.common_name || c.subject;
  const key = c.has_private_key ? ', with key' : '';
  const until = c.not_after ? `, until ${c.not_after.slice(0, 10)}` : '';
  return { value: `${c.id}`, label: `${name} (#${c.id}${key}${until})` };
}

function optionsFor(kind: PickerKind, choices: Choices): Option[] {
  const instances = (role: PluginRole, type?: string) =>
    choices.instances
      .filter((i) => i.role === role && (type === undefined || i.type === type))
      .map((i) => ({ value: i.name, label: `${i.name} (${i.type})` }));
  const parties = [
    ...choices.organizations.map((n) => ({ value: n, label: `${n} (organization)` })),
    ...choices.partners.map((n) => ({ value: n, label: `${n} (partner)` })),
  ];
  switch (kind) {
    case 'certificate':
      return [{ value: '', label: 'none' }, ...choices.certificates.map(certificateChoice)];
    case 'certificates':
      return choices.certificates.map(certificateChoice);
    case 'source':
      return [{ value: '', label: 'choose a source' }, ...instances('source')];
    case 'target':
      return [{ value: '', label: 'choose a target' }, ...instances('target')];
    case 'target-or-routes':
      return [{ value: '', label: 'the one the routes name' }, ...instances('target')];
    case 'as2-sender':
      return [{ value: '', label: 'the only one' }, ...instances('target', 'as2-sender')];
    case 'party':
      return [{ value: '', label: 'choose a party' }, ...parties];
    case 'party-or-any':
      return [{ value: '*', label: '* (any party)' }, ...parties];
    case 'party-or-empty':
      return [{ value: '', label: 'none (from the path pattern)' }, ...parties];
    case 'issuer':
      return [{ value: '', label: 'none (a local account)' }, ...choices.issuers];
    case 'organization':
      return [
        { value: '', label: 'the only one' },
        ...choices.organizations.map((n) => ({ value: n, label: n })),
      ];
  }
}

/**
 * The field as a picker: a select (a multi-select for a list), its options from the choices,
 * and a value already stored or submitted kept as a choice even when the lists lack it.
 */
export function asPicker(spec: FieldSpec, kind: PickerKind, choices: Choices, current?: unknown): FieldSpec {
  const options = optionsFor(kind, choices);
  const known = new Set(options.map((o) => o.value));
  const present = [current ?? spec.value]
    .flat()
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map(String);
  for (const v of present) if (!known.has(v)) options.push({ value: v, label: `${v} (not found)` });
  return {
    ...spec,
    kind: 'select',
    options,
    ...(kind === 'certificates' ? { multiple: true } : {}),
  };
}

/** The picker each reference field of the forms takes, by property name. */
export function pickerOf(
  name: string,
  context: 'route' | 'profile' | 'instance' | 'tools' | 'service-account',
): PickerKind | undefined {
  if (/_certificate_ids$/.test(name)) return 'certificates';
  if (/_certificate_id$/.test(name)) return 'certificate';
  if (context === 'route') {
    if (name === 'source_plugin') return 'source';
    if (name === 'target_plugin') return 'target';
    if (name === 'from' || name === 'to') return 'party-or-any';
  }
  if (context === 'service-account' && name === 'oidc_issuer') return 'issuer';
  if (context === 'tools') {
    if (name === 'sender') return 'as2-sender';
    if (name === 'organization') return 'organization';
  }
  return undefined;
}
