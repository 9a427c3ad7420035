/**
 * Plugin configurations (docs/api/plugin-configs.md): create, update and record schemas of every type, built
 * from the type's declaration so defaults and rules are written once.
 */
import { z } from 'zod';
import {
  pluginTypeDefinitions,
  pluginTypes,
  type PluginSettings,
  type PluginType,
  type PluginTypeDefinition,
} from '../../actors/index.js';
import { readOnly, recordName, singleLineText } from './common.js';
import { ServiceRecord } from './service.js';

function mapShape(
  shape: Record<string, z.ZodType>,
  f: (schema: z.ZodType, key: string) => z.ZodType,
): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, f(s, k)]));
}

const readOnlyFields = {
  type: readOnly(),
  secrets_set: readOnly(),
  created_at: readOnly(),
  updated_at: readOnly(),
  service: readOnly(),
  restart_needed: readOnly(),
};

/** What a record has before its type's settings. */
const recordHead = { name: z.string(), enabled: z.boolean() };

/** What a record has after its type's settings; `secrets_set` names the type's write-only values. */
function recordTail(secretNames: string[]) {
  return {
    secrets_set: z
      .array(z.enum(secretNames as [string, ...string[]]))
      .describe('Write-only properties that hold a value'),
    created_at: z.string(),
    updated_at: z.string(),
    service: ServiceRecord.nullable()
      .optional()
      .describe(
        'In the answer to a create: the instance in this process, started at once when enabled; null when this process does not run the type',
      ),
    restart_needed: z
      .boolean()
      .optional()
      .describe(
        'In the answer to an update: an instance runs with the configuration as it was; a restart applies it',
      ),
  };
}

/** What every type's record has besides its settings. */
type SharedRecordFields<T extends PluginType> = { type: T } & z.output<
  z.ZodObject<typeof recordHead & ReturnType<typeof recordTail>>
>;

/** A configuration of type T as the API answers it: `PluginConfigRecordOf<'as2-receiver'>` has `port`. */
export type PluginConfigRecordOf<T extends PluginType> = SharedRecordFields<T> & PluginSettings[T];

/** A configuration of any type; its `type` tells which settings it has. */
export type AnyPluginConfigRecord = { [T in PluginType]: PluginConfigRecordOf<T> }[PluginType];

export interface PluginConfigSchemas<T extends PluginType = PluginType> {
  create: z.ZodType<Record<string, unknown>>;
  update: z.ZodType<Record<string, unknown>>;
  record: z.ZodType<PluginConfigRecordOf<T>>;
}

function schemasOf(def: PluginTypeDefinition) {
  const create = z.strictObject({
    name: recordName,
    enabled: z.boolean().default(true),
    ...mapShape(def.fields, (s, k) => (k in def.defaults ? s.default(def.defaults[k] as never) : s)),
    ...mapShape(def.secretFields, (s) => s.optional()),
    ...readOnlyFields,
  });
  const update = z.strictObject({
    name: recordName.optional().describe('When sent, must be the name in the path'),
    enabled: z.boolean().optional(),
    ...mapShape(def.fields, (s) => s.optional()),
    ...mapShape(def.secretFields, (s) => s.optional()),
    ...readOnlyFields,
  });
  const record = z.object({
    type: z.literal(def.type),
    ...recordHead,
    ...def.fields,
    ...recordTail(Object.keys(def.secretFields)),
  });
  return {
    create: create as unknown as z.ZodType<Record<string, unknown>>,
    update: update as unknown as z.ZodType<Record<string, unknown>>,
    record,
  };
}

// Object.fromEntries forgets which schema is whose, and schemasOf reads a declaration as any
// PluginTypeDefinition: each record schema is built from its type's fields, whose output type
// PluginSettings is (actors/index.ts), so this cast restores what those two forget.
export const pluginConfigSchemas = Object.fromEntries(
  pluginTypes.map((t) => [t, schemasOf(pluginTypeDefinitions[t])]),
) as unknown as { [T in PluginType]: PluginConfigSchemas<T> };

/** Component names in the OpenAPI document: FilePollerConfig, FilePollerConfigCreate, … */
export function componentName(type: PluginType, suffix = ''): string {
  return `${type.replace(/(^|-)([a-z0-9])/g, (_m, _d, c: string) => c.toUpperCase())}Config${suffix}`;
}

const typeList = pluginTypes.join(', ');

export const PluginTypeQuery = z.object({
  type: z.string().optional().describe(`Plugin type: ${typeList}`),
});

export const PluginConfigParams = z.object({
  type: singleLineText(64).describe(`Plugin type: ${typeList}`),
  name: singleLineText(64),
});

/** For the OpenAPI document: any type's create body, and any type's record. */
export const anyPluginConfigCreate = z.union(
  pluginTypes.map((t) => pluginConfigSchemas[t].create) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]],
);
export const anyPluginConfigUpdate = z.union(
  pluginTypes.map((t) => pluginConfigSchemas[t].update) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]],
);
export const anyPluginConfigRecord = z.union(
  pluginTypes.map((t) => pluginConfigSchemas[t].record) as [
    z.ZodType<AnyPluginConfigRecord>,
    z.ZodType<AnyPluginConfigRecord>,
    ...z.ZodType<AnyPluginConfigRecord>[],
  ],
);
