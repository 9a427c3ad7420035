/**
 * POST /settings/storage/test (docs/api/settings.md, docs/api/conventions.md#limits): probes the *saved* storage settings, which may
 * differ from the storage this process runs with, and answers within 10 seconds whatever
 * the store does. A failure names the step and the store's own words; S3 credentials come
 * from the environment and appear in neither.
 */
import { probeStorage } from '../../../storage/payloads/probe.js';
import { selectionOf } from '../../../storage/payloads/selection.js';
import { freshEm, type ApiContext } from '../../context.js';
import { loadSettings, storageOf } from './service.js';
import { limits } from '../../../limits/limits.js';

export async function testStorage(ctx: ApiContext) {
  const storage = storageOf(await loadSettings(freshEm(ctx)));
  const result = await probeStorage(selectionOf(storage, ctx.options.dataDir), {
    deadlineMs: limits.storageTestDeadlineMs,
    checkFreeSpace: true,
  });
  return { ...result, storage };
}
