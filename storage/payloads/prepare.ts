/**
 * Checking at startup that the configured payload storage can be used; a failure stops the
 * process with a message naming the step and the problem (docs/api/settings.md). The local directory is
 * made when missing; a bucket must exist and take, give back and delete a probe blob.
 */
import { mkdir } from 'node:fs/promises';
import { probeStorage } from './probe.js';
import { describeSelection, selectionOf, type StorageFields } from './selection.js';
import { limits } from '../../limits/limits.js';

export type StorageChoice = StorageFields;

export async function prepareStorage(choice: StorageChoice, dataDir: string): Promise<void> {
  const selection = selectionOf(choice, dataDir);
  if (selection.backend === 'local') {
    await mkdir(selection.directory, { recursive: true }).catch((error: Error) => {
      throw new Error(
        `Payload storage (${describeSelection(selection)}) cannot be used: the directory step failed: ${error.message}`,
      );
    });
  }
  const result = await probeStorage(selection, { deadlineMs: limits.storeStartDeadlineMs });
  if (!result.ok) {
    throw new Error(
      `Payload storage (${describeSelection(selection)}) cannot be used: the ${result.step} step failed: ${result.problem}`,
    );
  }
}
