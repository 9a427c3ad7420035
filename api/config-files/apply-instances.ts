/**
 * The file's plugin instances, routes and settings, through the API's services. An instance's
 * settings are checked by its type's own schema, as a POST or PUT of it would be; a setting
 * that names a certificate takes its name in the file and its id here.
 */
import type { z } from 'zod';
import { pluginTypeDefinitions } from '../../actors/index.js';
import { PluginConfigSchema } from '../../storage/entities/plugin-config.js';
import { RouteSchema } from '../../storage/entities/route.js';
import {
  createPluginConfig,
  deletePluginConfig,
  updatePluginConfig,
} from '../resources/plugin-configs/service.js';
import { createRoute, deleteRoute, updateRoute } from '../resources/message-routes/service.js';
import { updateSettings } from '../resources/settings/service.js';
import type { ConfigFile, ConfigInstance } from '../schemas/config-file.js';
import { pluginConfigSchemas } from '../schemas/plugin-config.js';
import { fieldProblems } from '../validation.js';
import { attempt, type ApplyRun } from './apply-context.js';
import { resolveReference } from './names.js';

/** A secret's text as its setting takes it: as it is when that fits, else parsed as JSON. */
function secretValue(schema: z.ZodType, text: string): unknown {
  if (schema.safeParse(text).success) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function instanceBody(
  run: ApplyRun,
  instance: ConfigInstance,
  path: string,
  certificates: Map<string, number>,
): Record<string, unknown> | undefined {
  const def = pluginTypeDefinitions[instance.type];
  const before = Object.keys(run.problems).length;
  const body: Record<string, unknown> = { name: instance.name, enabled: instance.enabled };
  for (const [field, value] of Object.entries(instance.settings)) {
    if (field in def.secretFields) {
      run.problems[`${path}.settings.${field}`] = `Is write-only: put it under secrets as \${env:NAME}`;
    } else if (def.certificateFields?.[field] && typeof value === 'string') {
      const id = certificates.get(value);
      if (id === undefined)
        run.problems[`${path}.settings.${field}`] =
          `No certificate is named ${value} in the file or on this install`;
      body[field] = id;
    } else body[field] = value;
  }
  for (const [field, reference] of Object.entries(instance.secrets)) {
    const schema = def.secretFields[field];
    if (!schema) {
      run.problems[`${path}.secrets.${field}`] = `Is not a write-only setting of ${instance.type}`;
      continue;
    }
    const text = resolveReference(reference, run.env, `${path}.secrets.${field}`, run.problems);
    if (text !== undefined) body[field] = secretValue(schema, text);
  }
  return Object.keys(run.problems).length > before ? undefined : body;
}

export async function applyInstances(run: ApplyRun, file: ConfigFile, certificates: Map<string, number>) {
  for (const [i, instance] of file.instances.entries()) {
    const path = `instances[${i}]`;
    const def = pluginTypeDefinitions[instance.type];
    const rename = (field: string) =>
      field in def.secretFields ? `secrets.${field}` : field === 'name' ? 'name' : `settings.${field}`;
    const existing = await run.em().findOne(PluginConfigSchema, { name: instance.name });
    if (existing && existing.type !== instance.type) {
      run.problems[`${path}.type`] =
        `${instance.name} is a ${existing.type} instance on this install; delete it there first, or give this one another name`;
      continue;
    }
    const body = instanceBody(run, instance, path, certificates);
    if (!body) continue;
    const schemas = pluginConfigSchemas[instance.type];
    if (existing) {
      const { problems, valid } = fieldProblems(schemas.update as unknown as z.ZodObject, body);
      await attempt(
        run,
        path,
        () => updatePluginConfig(run.ctx, run.caller, instance.type, instance.name, valid, problems),
        rename,
      );
    } else {
      const { problems, valid } = fieldProblems(schemas.create as unknown as z.ZodObject, body);
      await attempt(
        run,
        path,
        () => createPluginConfig(run.ctx, run.caller, instance.type, valid, problems),
        rename,
      );
    }
  }
}

export async function applyRoutes(run: ApplyRun, file: ConfigFile) {
  for (const [i, route] of file.routes.entries()) {
    const path = `routes[${i}]`;
    const existing = await run.em().findOne(RouteSchema, { name: route.name });
    if (existing) await attempt(run, path, () => updateRoute(run.ctx, run.caller, existing.id, route));
    else await attempt(run, path, () => createRoute(run.ctx, run.caller, route));
  }
}

export async function applySettings(run: ApplyRun, file: ConfigFile) {
  if (!file.settings) return;
  const settings = file.settings;
  await attempt(run, 'settings', () => updateSettings(run.ctx, run.caller, settings));
}

/** With --prune, first of all: routes the file does not name, so the instances they use can go. */
export async function pruneRoutes(run: ApplyRun, file: ConfigFile) {
  const named = new Set(file.routes.map((r) => r.name));
  for (const r of await run.em().find(RouteSchema, {}, { orderBy: { name: 'asc' } })) {
    if (!named.has(r.name))
      await attempt(run, `routes (${r.name})`, () => deleteRoute(run.ctx, run.caller, r.id));
  }
}

export async function pruneInstances(run: ApplyRun, file: ConfigFile) {
  const named = new Set(file.instances.map((r) => r.name));
  for (const c of await run.em().find(PluginConfigSchema, {}, { orderBy: { name: 'asc' } })) {
    if (named.has(c.name) || !(c.type in pluginTypeDefinitions)) continue;
    await attempt(run, `instances (${c.name})`, () =>
      deletePluginConfig(run.ctx, run.caller, c.type as ConfigInstance['type'], c.name),
    );
  }
}
