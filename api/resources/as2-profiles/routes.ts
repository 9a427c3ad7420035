/** Routes of /as2/local-profiles and /as2/remote-profiles (docs/api/as2-profiles.md); the path id is the party's id. */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import { bodyInParts } from '../../validation.js';
import {
  LocalProfileCreate,
  LocalProfileRecord,
  LocalProfileUpdate,
  localProfileList,
  ProfileListQuery,
  RemoteProfileCreate,
  RemoteProfileRecord,
  RemoteProfileUpdate,
  remoteProfileList,
} from '../../schemas/as2-profile.js';
import {
  createLocalProfile,
  deleteLocalProfile,
  getLocalProfile,
  listLocalProfiles,
  updateLocalProfile,
} from './local-service.js';
import {
  createRemoteProfile,
  deleteRemoteProfile,
  getRemoteProfile,
  listRemoteProfiles,
  updateRemoteProfile,
} from './remote-service.js';
import { checkPartnerConnection, sendTestMessage } from './partner-tools.js';
import {
  CheckConnectionAnswer,
  CheckConnectionBody,
  TestMessageAnswer,
  TestMessageBody,
} from '../../schemas/as2-partner-tools.js';

export function registerAs2ProfileRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'AS2 profiles';
  router.add({
    method: 'GET',
    url: '/as2/local-profiles',
    tag,
    summary: 'List the AS2 profiles of organizations',
    query: ProfileListQuery,
    response: localProfileList,
    handler: async ({ query }) => listAnswer('profiles', await listLocalProfiles(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/as2/local-profiles',
    tag,
    summary: 'Create the AS2 profile of an organization',
    bodyDoc: LocalProfileCreate,
    status: 201,
    response: LocalProfileRecord,
    errors: ['CONFLICT'],
    handler: ({ request, caller }) =>
      createLocalProfile(ctx, caller, ...bodyInParts(LocalProfileCreate, request.body)),
  });
  router.add({
    method: 'GET',
    url: '/as2/local-profiles/:id',
    tag,
    summary: 'Get the AS2 profile of an organization (id: the organization id)',
    params: idParams,
    response: LocalProfileRecord,
    handler: ({ params }) => getLocalProfile(freshEm(ctx), params.id),
  });
  router.add({
    method: 'PUT',
    url: '/as2/local-profiles/:id',
    tag,
    summary: 'Update the AS2 profile of an organization (id: the organization id)',
    params: idParams,
    bodyDoc: LocalProfileUpdate,
    response: LocalProfileRecord,
    errors: ['CONFLICT'],
    handler: ({ params, request, caller }) =>
      updateLocalProfile(ctx, caller, params.id, ...bodyInParts(LocalProfileUpdate, request.body)),
  });
  router.add({
    method: 'DELETE',
    url: '/as2/local-profiles/:id',
    tag,
    summary: 'Delete the AS2 profile of an organization (id: the organization id)',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteLocalProfile(ctx, caller, params.id),
  });

  router.add({
    method: 'GET',
    url: '/as2/remote-profiles',
    tag,
    summary: 'List the AS2 profiles of partners',
    query: ProfileListQuery,
    response: remoteProfileList,
    handler: async ({ query }) => listAnswer('profiles', await listRemoteProfiles(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/as2/remote-profiles',
    tag,
    summary: 'Create the AS2 profile of a partner (secure defaults)',
    bodyDoc: RemoteProfileCreate,
    status: 201,
    response: RemoteProfileRecord,
    errors: ['CONFLICT'],
    handler: ({ request, caller }) =>
      createRemoteProfile(ctx, caller, ...bodyInParts(RemoteProfileCreate, request.body)),
  });
  router.add({
    method: 'GET',
    url: '/as2/remote-profiles/:id',
    tag,
    summary: 'Get the AS2 profile of a partner (id: the partner id)',
    params: idParams,
    response: RemoteProfileRecord,
    handler: ({ params }) => getRemoteProfile(freshEm(ctx), params.id),
  });
  router.add({
    method: 'PUT',
    url: '/as2/remote-profiles/:id',
    tag,
    summary: 'Update the AS2 profile of a partner (id: the partner id)',
    params: idParams,
    bodyDoc: RemoteProfileUpdate,
    response: RemoteProfileRecord,
    errors: ['CONFLICT'],
    handler: ({ params, request, caller }) =>
      updateRemoteProfile(ctx, caller, params.id, ...bodyInParts(RemoteProfileUpdate, request.body)),
  });
  router.add({
    method: 'DELETE',
    url: '/as2/remote-profiles/:id',
    tag,
    summary: 'Delete the AS2 profile of a partner (id: the partner id)',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteRemoteProfile(ctx, caller, params.id),
  });
  router.add({
    method: 'POST',
    url: '/as2/remote-profiles/:id/check-connection',
    tag,
    summary:
      'Check that the partner can be reached (certificates, proxy, resolve, connect, tls, http) without sending a message',
    params: idParams,
    body: CheckConnectionBody,
    response: CheckConnectionAnswer,
    errors: ['SENDER_NOT_RUNNING'],
    handler: ({ params, body }) => checkPartnerConnection(ctx, params.id, body),
  });
  router.add({
    method: 'POST',
    url: '/as2/remote-profiles/:id/test-message',
    tag,
    summary: 'Send the partner a small generated text file through the normal flow',
    params: idParams,
    body: TestMessageBody,
    status: 201,
    response: TestMessageAnswer,
    handler: ({ params, body, caller }) => sendTestMessage(ctx, caller, params.id, body),
  });
}
