/** Routes of /settings (docs/api/settings.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { SettingsRecord, SettingsUpdate, StorageTestResult } from '../../schemas/settings.js';
import { bodyInParts } from '../../validation.js';
import { getSettings, updateSettings } from './service.js';
import { testStorage } from './storage-test.js';

export function registerSettingsRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Settings';
  router.add({
    method: 'GET',
    url: '/settings',
    tag,
    summary: 'Get the settings',
    response: SettingsRecord,
    handler: () => getSettings(ctx, freshEm(ctx)),
  });
  router.add({
    method: 'PUT',
    url: '/settings',
    tag,
    summary: 'Change the settings; a property left out keeps its saved value',
    // Read here rather than by the router: the cross-field rules run on the properties that
    // pass, so one answer names every rejected property.
    bodyDoc: SettingsUpdate,
    response: SettingsRecord,
    handler: ({ request, caller }) =>
      updateSettings(ctx, caller, ...bodyInParts(SettingsUpdate, request.body)),
  });
  router.add({
    method: 'POST',
    url: '/settings/storage/test',
    tag,
    summary: 'Store, read back, compare and delete a probe blob with the saved storage settings',
    response: StorageTestResult,
    handler: () => testStorage(ctx),
  });
}
