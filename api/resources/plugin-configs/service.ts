/**
 * Plugin configurations (docs/api/plugin-configs.md, docs/api/conventions.md#write-only-values). Settings are stored with defaults
 * filled in; write-only values are sealed by the secret box and never leave this module
 * except to start an instance. A change takes effect when the instance restarts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pluginTypeDefinitions, type PluginType, type PluginTypeDefinition } from '../../../actors/index.js';
import { diffChanges } from '../../audit/changes.js';
import type { AuditedKind, AuditedRecord } from '../../audit/recorder.js';
import { openSecrets, type SecretBox, settingsOf } from '../../../runtime/index.js';
import { PluginConfigSchema, type PluginConfig } from '../../../storage/entities/plugin-config.js';
import { RouteSchema } from '../../../storage/entities/route.js';
import { partyNamed } from '../../../storage/repositories/parties.js';
import { clearServiceAction, configNamedIgnoringCase } from '../../../storage/repositories/plugin-configs.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { iso } from '../../schemas/common.js';
import { httpUrlProblem } from '../../schemas/url.js';
import { certificateSettingProblems } from './certificate-settings.js';
import { keepReplacedSecrets } from './secret-overlap.js';
import { loadForUpdate } from '../../validation.js';

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

/** Settings that name a party: each must exist when not empty. */
const partySettings: Partial<Record<PluginType, string[]>> = {
  'file-poller': ['from', 'to'],
  'sftp-poller': ['from', 'to'],
};

/** Every rule of the type over the configuration as it would be saved; one message per property. */
async function problemsOf(
  em: EntityManager,
  def: PluginTypeDefinition,
  settings: Values,
  secrets: Values,
  /** Refused properties (api/validation.ts fieldProblems): absent from `settings`, named first. */
  bodyProblems: Record<string, string> = {},
): Promise<Record<string, string>> {
  const problems: Record<string, string> = { ...bodyProblems };
  for (const [field, problem] of Object.entries(typeRules(def, settings, secrets, bodyProblems)))
    problems[field] ??= problem;
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
    if (typeof name === 'string' && name !== '' && !problems[field] && !(await partyNamed(em, name))) {
      problems[field] = `No organization or partner is named ${name}`;
    }
  }
  for (const [field, problem] of Object.entries(await certificateSettingProblems(em, def, settings))) {
    problems[field] ??= problem;
  }
  return problems;
}

/**
 * The type's rules between properties. With refused properties they run on what is left; a
 * rule that needs a refused property cannot be judged (it may throw on the missing value) and
 * is left out: the answer names the refused property already.
 */
function typeRules(
  def: PluginTypeDefinition,
  settings: Values,
  secrets: Values,
  bodyProblems: Record<string, string>,
) {
  if (Object.keys(bodyProblems).length === 0) return def.problems?.(settings, secrets) ?? {};
  try {
    return def.problems?.(settings, secrets) ?? {};
  } catch {
    return {};
  }
}

/**
 * Names are unique across types without regard to case; the same type is a 409, another a 400.
 * `only400`: with other problems in the body, a taken name is one more 400 detail.
 */
async function nameProblem(
  em: EntityManager,
  type: PluginType,
  name: string,
  only400 = false,
): Promise<Record<string, string> | undefined> {
  const taken = await configNamedIgnoringCase(em, name);
  if (!taken) return undefined;
  if (taken.type === type && only400) return { name: `Is the name of another ${type} instance` };
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
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<PluginConfigRecord> {
  const def = pluginTypeDefinitions[type];
  const name = body.name as string;
  const settings = pick(body, Object.keys(def.fields));
  const secrets = pick(body, Object.keys(def.secretFields));
  const refused = Object.keys(bodyProblems).length > 0;
  return inTransaction(ctx, async (em) => {
    const problems = { ...(await problemsOf(em, def, settings, secrets, bodyProblems)) };
    const taken = typeof name === 'string' ? await nameProblem(em, type, name, refused) : undefined;
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
  bodyProblems: Record<string, string> = {},
): Promise<PluginConfigRecord> {
  const def = pluginTypeDefinitions[type];
  const names: Record<string, string> = { ...bodyProblems };
  if (body.name !== undefined && body.name !== name) {
    names.name ??= `Names ${String(body.name)}, but the path names ${name}`;
  }
  if (body.type !== undefined && body.type !== type) {
    names.type ??= `Names type ${String(body.type)}, but the path names ${type}`;
  }
  return inTransaction(ctx, async (em) => {
    const row = await loadForUpdate(names, () => load(em, type, name));
    const storedSettings = settingsOf(def, row);
    const storedSecrets = openSecrets(ctx.secrets, row);
    const sentSecrets = pick(body, Object.keys(def.secretFields));
    const settings = { ...storedSettings, ...pick(body, Object.keys(def.fields)) };
    const secrets: Values = { ...storedSecrets, ...sentSecrets };
    for (const [k, v] of Object.entries(secrets)) if (clears(v)) delete secrets[k];

    const problems = await problemsOf(em, def, settings, secrets, names);
    // A stored secret belongs to the address it was entered for (docs/api/conventions.md#write-only-values).
    let addressChanged = false;
    if (def.urlField) {
      const field = def.urlField;
      const before = storedSettings[field] ?? storedSecrets[field];
      const after = settings[field] ?? secrets[field];
      addressChanged = after !== before;
      const unsent = Object.keys(storedSecrets).filter(
        (k) => k !== field && k in def.secretFields && !(k in sentSecrets),
      );
      if (addressChanged && unsent.length > 0 && !problems[field]) {
        problems[field] = `Changing ${field} needs ${unsent.join(' and ')} sent again`;
      }
    }
    if (Object.keys(problems).length > 0) throw validationError(problems);
    keepReplacedSecrets(def, storedSecrets, secrets, settings, ctx.now(), addressChanged);

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
      if (before.enabled !== after.enabled) await clearServiceAction(em, row.id);
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
