/**
 * Which payload store a process (and each of its threads) opens: the storage fields of the
 * settings read at start (docs/api/settings.md), in a form that crosses to worker threads as data.
 * Credentials are never part of it: the S3 client takes them from the SDK's standard sources.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StoreSelection } from '../../protocol/payload-wire.js';

/** The selection's shape crosses to worker threads, so the channel's protocol declares it. */
export { S3Selection, StoreSelection } from '../../protocol/payload-wire.js';

/** The storage fields of the settings record. */
export interface StorageFields {
  storage_backend: 'local' | 's3';
  storage_local_directory: string;
  storage_s3_bucket: string;
  storage_s3_region: string;
  storage_s3_endpoint: string;
}

/** storage_local_directory's default (docs/api/settings.md, api/schemas/settings.ts): the default place. */
export const defaultLocalDirectory = './payloads';

/**
 * Where the default storage_local_directory puts payloads: `<data dir>/payloads`, so that all
 * pier writes lives under the data directory and two data directories never share a store.
 * An install from before, whose payloads are in `./payloads` under the working directory,
 * keeps using that directory (the server logs how to move it: legacyPayloads).
 */
export function defaultPayloadDirectory(dataDir: string): string {
  const legacy = path.resolve(defaultLocalDirectory);
  return existsSync(legacy) ? legacy : path.join(dataDir, 'payloads');
}

/** `./payloads` under the working directory when an install from before still uses it. */
export function legacyPayloads(fields: StorageFields, dataDir: string): string | undefined {
  if (fields.storage_backend !== 'local' || !isDefault(fields.storage_local_directory)) return undefined;
  const directory = defaultPayloadDirectory(dataDir);
  return directory === path.join(dataDir, 'payloads') ? undefined : directory;
}

function isDefault(directory: string): boolean {
  return path.normalize(directory) === path.normalize(defaultLocalDirectory);
}

/**
 * The store the storage fields select. The default directory is under the data directory
 * (defaultPayloadDirectory); another relative directory is taken from the working directory.
 */
export function selectionOf(fields: StorageFields, dataDir: string): StoreSelection {
  if (fields.storage_backend === 's3') {
    return {
      backend: 's3',
      bucket: fields.storage_s3_bucket,
      region: fields.storage_s3_region,
      endpoint: fields.storage_s3_endpoint,
    };
  }
  const directory = isDefault(fields.storage_local_directory)
    ? defaultPayloadDirectory(dataDir)
    : path.resolve(fields.storage_local_directory);
  return { backend: 'local', directory };
}

/** A short description for messages: never anything secret (there is nothing secret in it). */
export function describeSelection(selection: StoreSelection): string {
  if (selection.backend === 'local') return `local directory ${selection.directory}`;
  const where = selection.endpoint ? ` at ${selection.endpoint}` : '';
  return `S3 bucket ${selection.bucket} (region ${selection.region})${where}`;
}
