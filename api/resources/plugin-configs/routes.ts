/** Routes of /plugins/configs (docs/api/plugin-configs.md): one set of operations for every plugin type. */
import { isPluginType, type PluginType } from '../../../actors/index.js';
import { freshEm, type ApiContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { ApiRouter } from '../../http/router.js';
import {
  anyPluginConfigCreate,
  anyPluginConfigRecord,
  anyPluginConfigUpdate,
  PluginConfigParams,
  pluginConfigSchemas,
  PluginTypeQuery,
} from '../../schemas/plugin-config.js';
import type { z } from 'zod';
import { fieldProblems, requireObjectBody } from '../../validation.js';
import { followCreated, followDeleted, followUpdated } from './instance-state.js';
import { createPluginConfig, deletePluginConfig, getPluginConfig, updatePluginConfig } from './service.js';

function pluginType(text: string | undefined): PluginType {
  if (text === undefined || text === '') throw new ApiError('MISSING_TYPE');
  if (!isPluginType(text)) throw new ApiError('INVALID_TYPE', `Unknown plugin type ${text}`);
  return text;
}

export function registerPluginConfigRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Plugin configurations';
  router.add({
    method: 'POST',
    url: '/plugins/configs',
    tag,
    summary:
      'Create a plugin configuration of the type given by ?type=; an enabled one starts at once (its state in `service`)',
    query: PluginTypeQuery,
    bodyDoc: anyPluginConfigCreate,
    status: 201,
    response: anyPluginConfigRecord,
    errors: ['MISSING_TYPE', 'INVALID_TYPE', 'CONFLICT'],
    handler: async ({ query, request, caller }) => {
      const type = pluginType(query.type);
      const { problems, valid: body } = fieldProblems(
        pluginConfigSchemas[type].create as unknown as z.ZodObject,
        requireObjectBody(request.body),
      );
      // Every rejected property is named in one answer: the type's rules run on the rest.
      const record = await createPluginConfig(ctx, caller, type, body, problems);
      return { ...record, service: await followCreated(ctx, type, body.name as string) };
    },
  });
  router.add({
    method: 'GET',
    url: '/plugins/configs/:type/:name',
    tag,
    summary: 'Get a plugin configuration; write-only values are never returned',
    params: PluginConfigParams,
    response: anyPluginConfigRecord,
    errors: ['INVALID_TYPE'],
    handler: ({ params }) => getPluginConfig(freshEm(ctx), pluginType(params.type), params.name),
  });
  router.add({
    method: 'PUT',
    url: '/plugins/configs/:type/:name',
    tag,
    summary:
      'Update a plugin configuration; effective when the instance restarts (`restart_needed` says when one runs with the old one)',
    params: PluginConfigParams,
    bodyDoc: anyPluginConfigUpdate,
    response: anyPluginConfigRecord,
    errors: ['INVALID_TYPE'],
    handler: async ({ params, request, caller }) => {
      const type = pluginType(params.type);
      const { problems, valid: body } = fieldProblems(
        pluginConfigSchemas[type].update as unknown as z.ZodObject,
        requireObjectBody(request.body),
      );
      const record = await updatePluginConfig(ctx, caller, type, params.name, body, problems);
      return { ...record, restart_needed: await followUpdated(ctx, type, params.name) };
    },
  });
  router.add({
    method: 'DELETE',
    url: '/plugins/configs/:type/:name',
    tag,
    summary: 'Delete a plugin configuration that no route uses; its instance stops and leaves /services',
    params: PluginConfigParams,
    status: 204,
    errors: ['INVALID_TYPE', 'CONFLICT'],
    handler: async ({ params, caller }) => {
      const type = pluginType(params.type);
      await deletePluginConfig(ctx, caller, type, params.name);
      await followDeleted(ctx, type, params.name);
    },
  });
}
