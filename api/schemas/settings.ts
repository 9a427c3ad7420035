/** The settings record (docs/api/settings.md) and its validation. */
import { z } from 'zod';
import { singleLineText } from './common.js';
import { httpUrlProblem } from './url.js';
import { unfitDirectory } from '../../actors/shared/directory-path.js';

const storageBackends = ['local', 's3'] as const;

export const SettingsFields = {
  storage_backend: z.enum(storageBackends),
  storage_local_directory: singleLineText(1024),
  storage_s3_bucket: singleLineText(63),
  storage_s3_region: singleLineText(64),
  storage_s3_endpoint: singleLineText(2048),
  delivery_max_dispatches: z.number().int('Must be a whole number').min(1).max(20),
  identification_hide_version: z.boolean(),
};

export const settingsDefaults: SettingsValues = {
  storage_backend: 'local',
  storage_local_directory: './payloads',
  storage_s3_bucket: '',
  storage_s3_region: '',
  storage_s3_endpoint: '',
  delivery_max_dispatches: 5,
  identification_hide_version: false,
};

const readOnly = z.unknown().optional().describe('Read only; ignored when sent');

export const SettingsUpdate = z.strictObject({
  storage_backend: SettingsFields.storage_backend.optional(),
  storage_local_directory: SettingsFields.storage_local_directory.optional(),
  storage_s3_bucket: SettingsFields.storage_s3_bucket.optional(),
  storage_s3_region: SettingsFields.storage_s3_region.optional(),
  storage_s3_endpoint: SettingsFields.storage_s3_endpoint.optional(),
  delivery_max_dispatches: SettingsFields.delivery_max_dispatches.optional(),
  identification_hide_version: SettingsFields.identification_hide_version.optional(),
  updated_at: readOnly,
  storage_in_use: readOnly,
  restart_needed: readOnly,
});

/** The editable properties of the record, all present. */
export const SettingsValues = z.object(SettingsFields);
export type SettingsValues = z.infer<typeof SettingsValues>;

/** Cross-field rules, applied to the record as it would be saved. */
export function settingsProblems(s: SettingsValues): Record<string, string> {
  const problems: Record<string, string> = {};
  const directory = s.storage_local_directory.trim();
  if (s.storage_backend === 'local' && directory === '') {
    problems.storage_local_directory = 'Required for local storage';
  } else if (directory !== '') {
    // A relative directory is taken from the working directory, as the store will take it.
    const unfit = unfitDirectory(directory.startsWith('/') ? directory : `${process.cwd()}/${directory}`);
    if (unfit) problems.storage_local_directory = unfit;
  }
  if (s.storage_backend === 's3') {
    if (s.storage_s3_bucket.trim() === '') problems.storage_s3_bucket = 'Required for S3 storage';
    else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s.storage_s3_bucket)) {
      problems.storage_s3_bucket =
        'Must be a valid bucket name: 3 to 63 lower case letters, digits, dots or hyphens';
    }
    if (s.storage_s3_region.trim() === '') problems.storage_s3_region = 'Required for S3 storage';
  }
  if (s.storage_s3_endpoint !== '') {
    const problem = httpUrlProblem(s.storage_s3_endpoint);
    if (problem) problems.storage_s3_endpoint = problem;
  }
  return problems;
}

/** Which storage a process uses: the storage fields of the settings. */
export interface StorageSelection {
  storage_backend: 'local' | 's3';
  storage_local_directory: string;
  storage_s3_bucket: string;
  storage_s3_region: string;
  storage_s3_endpoint: string;
}

const StorageSelectionSchema = z.object({
  storage_backend: z.enum(storageBackends),
  storage_local_directory: z.string(),
  storage_s3_bucket: z.string(),
  storage_s3_region: z.string(),
  storage_s3_endpoint: z.string(),
});

export const SettingsRecord = z.object({
  ...SettingsFields,
  updated_at: z.string(),
  storage_in_use: StorageSelectionSchema,
  restart_needed: z.boolean(),
});

/** The answer of POST /settings/storage/test (docs/api/settings.md): `step` and `problem` only on failure. */
export const StorageTestResult = z.object({
  ok: z.boolean(),
  storage: StorageSelectionSchema,
  elapsed_ms: z.number().int(),
  step: z.enum(['directory', 'connect', 'write', 'read', 'compare', 'delete']).optional(),
  problem: z.string().optional(),
});
