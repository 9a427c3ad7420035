/**
 * The partner onboarding wizard's steps, in order, and the addresses that carry its state:
 * the organization and partner being set up travel in the query (`organization`, `partner`),
 * so every step can be opened, bookmarked or revisited on its own.
 */
import { href } from '../../html.js';
import { uiPrefix } from '../../layout.js';

export const wizardBase = `${uiPrefix}/wizard`;

export const wizardSteps = [
  { key: 'organization', title: 'Your organization and key' },
  { key: 'partner', title: 'The partner and its certificate' },
  { key: 'profile', title: 'AS2 profile' },
  { key: 'instances', title: 'Receiver and sender' },
  { key: 'routes', title: 'Routes' },
  { key: 'check', title: 'Check and test' },
] as const;

export type StepKey = (typeof wizardSteps)[number]['key'];

/** The records a wizard run is about, by id. */
export interface WizardIds {
  organization?: number | undefined;
  partner?: number | undefined;
}

export function stepHref(step: StepKey, ids: WizardIds, extra: Record<string, string> = {}): string {
  return href(`${wizardBase}/${step}`, {
    organization: ids.organization,
    partner: ids.partner,
    ...extra,
  });
}

/** A positive whole number from the query, or undefined. */
function idOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= 2_147_483_647 ? n : undefined;
}

export function idsOf(query: unknown): WizardIds {
  const q = (query ?? {}) as Record<string, unknown>;
  return { organization: idOf(q.organization), partner: idOf(q.partner) };
}
