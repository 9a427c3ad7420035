/**
 * Plugin configurations (spec 2.6, 2.1 rules 8 and 9). Settings are stored with defaults
 * filled in; write-only values are sealed by the secret box and never leave this module
 * except to start an instance. A change takes effect when the instance restarts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pluginTypeDefinitions, type PluginType, type PluginTypeDefinition } from '../../../actors/index.js';
import { diffChanges } from '../../../runtime/audit/changes.js';
import type { AuditedKind, AuditedRecord } from '../../../runtime/audit/recorder.js';
import type { SecretBox } from '../../../runtime/secrets/secret-box.js';
import { openSecrets, settingsOf } from '../../../runtime/supervisor/instance-config.js';
import { PluginConfigSchema, type PluginConfig } from '../../../storage/entities/plugin-config.js';
import { RouteSchema } from '../../../storage/entities/route.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { iso } from '../../schemas/common.js';
import { httpUrlProblem } from '../../schemas/url.js';
import { certificateSettingProblems } from './certificate-settings.js';

export type PluginConfigRecord = Record<string, unknown>;
type Values = Record<string, unknown>;

export function pluginConfigJson(def: PluginTypeDefinition, row: PluginConfig): PluginConfigRecord {
  return {
    type: row.type,
    name: row.name,
    enabled: row.enabled,
    ...settingsOf(def, row),
    secrets_set: Object.keys(def.secretFields).filter((k) => k in row.secrets),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function findPluginConfig(
  em: EntityManager,
  type: PluginType,
  name: string,
): Promise<PluginConfig | null> {
  return em.findOne(PluginConfigSchema, { type, name });
}

async function load(em: EntityManager, type: PluginType, name: string): Promise<PluginConfig> {
  const row = await findPluginConfig(em, type, name);
  if (!row) throw notFound(`Plugin configuration ${type}/${name}`);
  return row;
}

async function partyExists(em: EntityManager, name: string): Promise<boolean> {
  const rows = await em
    .getConnection()
    .execute<{ n: string }[]>(
      'select (select count(*) from organization where name = ?) + (select count(*) from partner where name = ?) as n',
      [name, name],
      'all',
      em.getTransactionContext(),
    );
  return Number(rows[0]?.n ?? 0) > 0;
}

/** Settings that name a party: each must exist when not empty. */
const partySettings: Partial<Record<PluginType, string[]>> = { 'file-poller': ['from', 'to'] };

/** Every rule of the type over the configuration as it would be saved; one message per property. */
async function problemsOf(
  em: EntityManager,
  def: PluginTypeDefinition,
  settings: Values,
  secrets: Values,
): Promise<Record<string, string>> {
  const problems: Record<string, string> = { ...def.problems?.(settings) };
  for (const field of def.urlFields ?? []) {
    const value = settings[field] ?? secrets[field];
    if (typeof value !== 'string') continue;
    const problem = httpUrlProblem(value);
    if (problem) problems[field] ??= problem;
  }
  for (const field of def.requiredSecrets ?? []) {
    if (secrets[field] === undefined || secrets[field] === '') problems[field] ??= 'Required';
  }
  for (const field of partySettings[def.type] ?? []) {
    const name = settings[field];
    if (typeof name === 'string' && name !== '' && !problems[field] && !(await partyExists(em, name))) {
      problems[field] = `No organization or partner is named ${name}`;
    }
  }
  for (const [field, problem] of Object.entries(await certificateSettingProblems(em, def, settings))) {
    problems[field] ??= problem;
  }
  return problems;
}

/** Names are unique across types without regard to case; the same type is a 409, another a 400. */
async function nameProblem(
  em: EntityManager,
  type: PluginType,
  name: string,
): Promise<Record<string, string> | undefined> {
  const rows = await em
    .getConnection()
    .execute<{ type: string; name: string }[]>(
      'select type, name from plugin_config where lower(name) = lower(?)',
      [name],
      'all',
      em.getTransactionContext(),
    );
  const taken = rows[0];
  if (!taken) return undefined;
  if (taken.type === type) throw conflict(`A ${type} named ${taken.name} exists`, { name: 'Is taken' });
  return { name: `Is the name of a ${taken.type} instance` };
}

function pick(values: Values, keys: string[]): Values {
  return Object.fromEntries(keys.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
}

/** A write-only value that clears the stored one: an empty password or an empty header list. */
function clears(value: unknown): boolean {
  return value === '' || (Array.isArray(value) && value.length === 0);
}

function sealAll(secrets: SecretBox, values: Values): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined && !clears(v))
      .map(([k, v]) => [k, secrets.seal(JSON.stringify(v))]),
  );
}

/** What the audit log compares for a configuration of this type; secrets by name only. */
function audited(def: PluginTypeDefinition): AuditedKind & { secrets: string[] } {
  const secrets = Object.keys(def.secretFields);
  return {
    kind: 'plugin-config',
    fields: ['name', 'enabled', ...Object.keys(def.fields), ...secrets],
    secrets,
  };
}

/** Configurations are named by type and name in the log (`file-writer/outbox`). */
function auditedRecord(id: number, type: PluginType, name: string): AuditedRecord {
  return { id, name: `${type}/${name}` };
}

export async function createPluginConfig(
  ctx: ApiContext,
  caller: Caller,
  type: PluginType,
  body: Values,
): Promise<PluginConfigRecord> {
  const def = pluginTypeDefinitions[type];
  const name = body.name as string;
  const settings = pick(body, Object.keys(def.fields));
  const secrets = pick(body, Object.keys(def.secretFields));
  return inTransaction(ctx, async (em) => {
    const problems = { ...(await problemsOf(em, def, settings, secrets)) };
    const taken = await nameProblem(em, type, name);
    if (taken || Object.keys(problems).length > 0) throw validationError({ ...taken, ...problems });
    const row = em.create(PluginConfigSchema, {
      type,
      name,
      enabled: body.enabled as boolean,
      settings,
      secrets: sealAll(ctx.secrets, secrets),
    });
    await em.flush();
    const after = { name, enabled: row.enabled, ...settings, ...secrets };
    await ctx.audit.created(em, caller.actor, audited(def), auditedRecord(row.id, type, name), after);
    return pluginConfigJson(def, row);
  });
}

export async function getPluginConfig(
  em: EntityManager,
  type: PluginType,
  name: string,
): Promise<PluginConfigRecord> {
  return pluginConfigJson(pluginTypeDefinitions[type], await load(em, type, name));
}

export async function updatePluginConfig(
  ctx: ApiContext,
  caller: Caller,
  type: PluginType,
  name: string,
  body: Values,
): Promise<PluginConfigRecord> {
  const def = pluginTypeDefinitions[type];
  const names: Record<string, string> = {};
  if (body.name !== undefined && body.name !== name) {
    names.name = `Names ${String(body.name)}, but the path names ${name}`;
  }
  if (body.type !== undefined && body.type !== type) {
    names.type = `Names type ${String(body.type)}, but the path names ${type}`;
  }
  if (Object.keys(names).length > 0) throw validationError(names);
  return inTransaction(ctx, async (em) => {
    const row = await load(em, type, name);
    const storedSettings = settingsOf(def, row);
    const storedSecrets = openSecrets(ctx.secrets, row);
    const sentSecrets = pick(body, Object.keys(def.secretFields));
    const settings = { ...storedSettings, ...pick(body, Object.keys(def.fields)) };
    const secrets: Values = { ...storedSecrets, ...sentSecrets };
    for (const [k, v] of Object.entries(secrets)) if (clears(v)) delete secrets[k];

    const problems = await problemsOf(em, def, settings, secrets);
    // A stored secret belongs to the address it was entered for (spec 2.1 rule 8).
    if (def.urlField) {
      const field = def.urlField;
      const before = storedSettings[field] ?? storedSecrets[field];
      const after = settings[field] ?? secrets[field];
      const unsent = Object.keys(storedSecrets).filter((k) => k !== field && !(k in sentSecrets));
      if (after !== before && unsent.length > 0 && !problems[field]) {
        problems[field] = `Changing ${field} needs ${unsent.join(' and ')} sent again`;
      }
    }
    if (Object.keys(problems).length > 0) throw validationError(problems);

    const before = { name, enabled: row.enabled, ...storedSettings, ...storedSecrets };
    const after = {
      name,
      enabled: (body.enabled as boolean | undefined) ?? row.enabled,
      ...settings,
      ...secrets,
    };
    const spec = audited(def);
    if (diffChanges(before, after, spec.fields, spec.secrets).length > 0) {
      // Unchanged secrets keep their sealed form; changed ones are sealed afresh.
      const sealed: Record<string, string> = {};
      for (const [k, v] of Object.entries(secrets)) {
        const same = JSON.stringify(storedSecrets[k]) === JSON.stringify(v);
        sealed[k] = same && row.secrets[k] ? row.secrets[k] : ctx.secrets.seal(JSON.stringify(v));
      }
      em.assign(row, { enabled: after.enabled, settings, secrets: sealed });
      await em.flush();
      // A changed `enabled` is the operator's latest word: it replaces the last service action.
      if (before.enabled !== after.enabled)
        await em
          .getConnection()
          .execute(
            'update plugin_config set service_action = null where id = ?',
            [row.id],
            'run',
            em.getTransactionContext(),
          );
      await ctx.audit.updated(em, caller.actor, spec, auditedRecord(row.id, type, name), before, after);
    }
    return pluginConfigJson(def, row);
  });
}

export async function deletePluginConfig(
  ctx: ApiContext,
  caller: Caller,
  type: PluginType,
  name: string,
): Promise<void> {
  const def = pluginTypeDefinitions[type];
  await inTransaction(ctx, async (em) => {
    const row = await load(em, type, name);
    const routes = await em.find(
      RouteSchema,
      { $or: [{ source_plugin: name }, { target_plugin: name }] },
      { orderBy: { name: 'asc' } },
    );
    if (routes.length > 0) {
      const list = routes.map((r) => r.name);
      throw conflict(`Routes use ${type}/${name}: ${list.join(', ')}`, { routes: list });
    }
    const before = { name, enabled: row.enabled, ...settingsOf(def, row), ...openSecrets(ctx.secrets, row) };
    em.remove(row);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, audited(def), auditedRecord(row.id, type, name), before);
  });
}
