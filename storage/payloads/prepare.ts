/**
 * Checking at startup that the configured payload storage can be used; a failure stops the
 * process (spec 2.11). The stores themselves live beside this file.
 */
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';

export interface StorageChoice {
  storage_backend: 'local' | 's3';
  storage_local_directory: string;
}

export async function prepareStorage(choice: StorageChoice): Promise<void> {
  if (choice.storage_backend === 's3') {
    throw new Error('S3 payload storage is not available in this build; set storage_backend to local');
  }
  const dir = path.resolve(choice.storage_local_directory);
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new Error(`Payload directory ${dir} cannot be used: ${(error as Error).message}`);
  }
}
