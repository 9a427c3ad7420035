/**
 * The runtime's answer to "may this file be sent by hand, and to which target?": part of the
 * facade the API calls (runtime/facade.ts), so the API needs none of the dispatcher's internals.
 * The routes are read once, in the statement that checks the form, and the target found there
 * is the one the acceptance is handed.
 */
import { pluginTypeDefinitions, type PluginType } from '../actors/index.js';
import type { Orm } from '../storage/db.js';
import { direct } from '../storage/sql.js';
import { directionOf, type PartyKind } from '../flow/commands/accept-plan.js';
import { targetsBetween, type RouteRow } from '../flow/tables/routing.js';

export interface HandUploadForm {
  from: string;
  to: string;
  /** The target instance named in the form; without it, the one the routes name. */
  target?: string | undefined;
}

/** Problems by form field (empty when the form is good) and the target to hand the message to. */
export type HandUploadCheck = { problems: Record<string, string>; target: string | undefined };

/** Parties: one organization and one partner. Target: a target instance, or the one the routes name. */
export async function checkHandUpload(orm: Orm, form: HandUploadForm): Promise<HandUploadCheck> {
  const problems: Record<string, string> = {};
  // The parties, the target's type and the routes in one statement (a round trip per upload
  // saved), on the driver directly (storage/sql.ts says why).
  const [row] = await direct(orm).prepared<{
    parties: { name: string; kind: PartyKind | 'target' }[];
    routes: RouteRow[];
  }>(
    'pier_hand_upload_check',
    `select (select coalesce(json_agg(p), '[]') from (
               select name, 'organization' as kind from organization where name in (?, ?)
               union all select name, 'partner' as kind from partner where name in (?, ?)
               union all select type as name, 'target' as kind from plugin_config where name = ?) p) as parties,
            (select coalesce(json_agg(r), '[]') from (
               select source_plugin, from_party, to_party, document_type, target_plugin from route where ?::text is null) r) as routes`,
    [form.from, form.to, form.from, form.to, form.target ?? null, form.target ?? null],
  );
  const rows = row!.parties;
  const targetType = rows.find((r) => r.kind === 'target')?.name;
  const kinds = (name: string) => {
    const found = rows.filter((r) => r.kind !== 'target' && r.name === name).map((r) => r.kind as PartyKind);
    return found.length > 0 ? new Set(found) : undefined;
  };
  const from = kinds(form.from);
  const to = kinds(form.to);
  if (!from) problems.from = `No organization or partner is named ${form.from}`;
  if (!to) problems.to = `No organization or partner is named ${form.to}`;
  if (from && to && directionOf(from, to).problem) {
    problems.to = 'One party must be an organization and the other a partner';
  }
  if (form.target !== undefined) {
    if (!targetType) problems.target = `No plugin instance is named ${form.target}`;
    else if (pluginTypeDefinitions[targetType as PluginType]?.role !== 'target') {
      problems.target = `${form.target} is a ${targetType}, not a target`;
    }
    return { problems, target: form.target };
  }
  if (problems.from || problems.to) return { problems, target: undefined };
  const targets = targetsBetween(form.from, form.to, row!.routes);
  if (targets.length === 0) problems.target = `No route goes from ${form.from} to ${form.to}; name a target`;
  if (targets.length > 1) {
    problems.target = `Routes from ${form.from} to ${form.to} name several targets (${targets.join(', ')}); name one`;
  }
  return { problems, target: targets.length === 1 ? targets[0] : undefined };
}
