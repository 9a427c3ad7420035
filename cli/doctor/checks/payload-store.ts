/**
 * Payload store writable with free space: the storage test of POST /settings/storage/test on
 * the saved settings (store, read back, compare, delete a probe; a local directory also needs
 * room left), and the room a local store has.
 */
import { statfs } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadSettings, storageOf } from '../../../api/resources/settings/service.js';
import { probeStorage } from '../../../storage/payloads/probe.js';
import { describeSelection, selectionOf } from '../../../storage/payloads/selection.js';
import { failed, passed, type CheckResult } from '../checklist.js';

const id = 'payload-store';
const title = 'Payload store writable with free space';

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export async function checkPayloadStore(em: EntityManager, dataDir: string): Promise<CheckResult> {
  const selection = selectionOf(storageOf(await loadSettings(em)), dataDir);
  const where = describeSelection(selection);
  const result = await probeStorage(selection, { deadlineMs: 9_000, checkFreeSpace: true });
  if (!result.ok) {
    return failed(
      id,
      title,
      `${where}: ${result.step}: ${result.problem}`,
      selection.backend === 'local'
        ? `Free space on its file system, or make ${selection.directory} writable by the user pier runs as, ` +
            'or choose another directory: `pier settings set storage_local_directory=<directory>` ' +
            '(stages already stored: `pier storage migrate`)'
        : 'Check the bucket, region and endpoint (`pier settings show`) and the S3 credentials in the ' +
            'environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, …); the store’s own words are above',
    );
  }
  if (selection.backend === 'local') {
    const fs = await statfs(selection.directory);
    return passed(id, title, `${where}: written, read back and deleted; ${gib(fs.bavail * fs.bsize)} free`);
  }
  return passed(id, title, `${where}: written, read back and deleted in ${result.elapsed_ms} ms`);
}
