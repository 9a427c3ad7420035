/**
 * GET /config, POST /config/plan and /config/apply (docs/configuration-files.md): the install's
 * configuration as a file, and a file's changes shown or made. The JSON Schema of the file is
 * public, like the OpenAPI document it is part of.
 */
import { z } from 'zod';
import { ConfigProblems } from '../../config-files/names.js';
import { PruneUnconfirmed } from '../../config-files/prune-guard.js';
import { applyConfig, configYaml, exportConfig, planConfig } from '../../config-files/service.js';
import type { ApiContext } from '../../context.js';
import { checkRole } from '../../auth/roles.js';
import type { ApiRouter } from '../../http/router.js';
import { ConfigFile, configJsonSchema } from '../../schemas/config-file.js';
import { multiLineText, recordName } from '../../schemas/common.js';
import { limits } from '../../../limits/limits.js';

const ExportQuery = z.object({
  partner: z
    .union([recordName, z.array(recordName)])
    .optional()
    .describe('Only these partners (repeat the parameter for several), their certificates and routes'),
  format: z.enum(['json', 'yaml']).default('json').describe('yaml answers the file itself, text/yaml'),
  seal_keys: z
    .enum(['true', 'false'])
    .default('false')
    .describe("true: private keys sealed with this install's secret key instead of `stored` (admin only)"),
});

/** The body of POST /config/plan and /config/apply (the web UI's import form sends it too). */
export const ApplyBody = z.strictObject({
  document: multiLineText(limits.configBodyLimitBytes)
    .min(1)
    .describe('The configuration file, YAML or JSON'),
  prune: z.boolean().default(false).describe('Delete what the file does not name (apply only)'),
  confirm_delete: z
    .number()
    .int('Must be a whole number')
    .min(0)
    .optional()
    .describe(
      "With prune, apply only: the number of records the prune deletes, as the plan shows; needed when that is more than half of the install's records, refused when it is not that number",
    ),
});

const FieldChange = z.object({
  field: z.string(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
  secret: z.literal(true).optional().describe('A write-only value changes; its values are never shown'),
});
const PlannedChange = z.object({
  action: z.enum(['create', 'update', 'delete']),
  section: z.enum(['settings', 'certificates', 'organizations', 'partners', 'instances', 'routes']),
  name: z.string(),
  changes: z.array(FieldChange),
});
export const PlanAnswer = z.object({ changes: z.array(PlannedChange) });
export const ApplyAnswer = z.object({
  applied: z.boolean(),
  changes: z.array(PlannedChange),
  directories: z
    .array(
      z.object({
        instance: z.string(),
        field: z.string(),
        path: z.string(),
        outcome: z.enum(['made', 'present', 'failed']),
        error: z.string().optional().describe('Why it could not be made (failed only)'),
      }),
    )
    .describe(
      "The local directories the file's instances name, made when missing before the instances start",
    ),
  instances: z.array(
    z.object({
      type: z.string(),
      name: z.string(),
      outcome: z.string(),
      error: z.string().nullable().describe('Why the instance is not running, when it failed to start'),
    }),
  ),
});

/** A refused file's problems are the 400's details, each under its path in the file; so is an unconfirmed prune. */
async function refusingProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigProblems || error instanceof PruneUnconfirmed) throw error.toApiError();
    throw error;
  }
}

export function registerConfigRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Configuration files';
  router.add({
    method: 'GET',
    url: '/config',
    tag,
    summary: "The install's configuration as a configuration file (secrets as ${env:NAME} references)",
    query: ExportQuery,
    response: ConfigFile,
    alsoAnswers: { mediaType: 'text/yaml', description: 'With format=yaml: the configuration file itself' },
    errors: ['INSUFFICIENT_ROLE'],
    handler: async ({ query, reply, caller }) => {
      // Sealed keys open on any install sharing the secret key: only an administrator takes them out.
      if (query.seal_keys === 'true') checkRole(caller, 'admin');
      const partners = query.partner === undefined ? undefined : [query.partner].flat();
      const file = await exportConfig(ctx, { partners, sealKeys: query.seal_keys === 'true' });
      if (query.format === 'yaml') {
        return reply
          .type('text/yaml; charset=utf-8')
          .header('content-disposition', 'attachment; filename="pier-config.yaml"')
          .send(configYaml(file));
      }
      return file;
    },
  });
  router.add({
    method: 'GET',
    url: '/config/schema',
    tag,
    public: true,
    summary: 'The JSON Schema of the configuration file',
    response: z.record(z.string(), z.unknown()),
    handler: async () => configJsonSchema(),
  });
  router.add({
    method: 'POST',
    url: '/config/plan',
    tag,
    summary: 'What applying the file would change, field by field; changes nothing',
    body: ApplyBody,
    bodyLimit: limits.configBodyLimitBytes,
    response: PlanAnswer,
    handler: async ({ body, caller }) => ({
      changes: await refusingProblems(() =>
        planConfig(ctx, caller, body.document, { prune: body.prune, env: process.env }),
      ),
    }),
  });
  router.add({
    method: 'POST',
    url: '/config/apply',
    tag,
    summary:
      'Make the install what the file says, in one transaction (all or nothing); instances whose configuration changed are restarted',
    body: ApplyBody,
    bodyLimit: limits.configBodyLimitBytes,
    response: ApplyAnswer,
    handler: ({ body, caller }) =>
      refusingProblems(() =>
        applyConfig(ctx, caller, body.document, {
          prune: body.prune,
          confirmDelete: body.confirm_delete,
          env: process.env,
        }),
      ),
  });
}
