/** Configuration of the SFTP sender: delivers payloads as files on a partner's SFTP server. */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import { formatField } from '../shared/delivery-format.js';
import {
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  unreachableAlertDefaults,
  unreachableAlertFields,
} from '../shared/fields.js';
import { patternProblem } from '../shared/path-pattern.js';
import {
  credentialProblems,
  remotePath,
  sftpConnectionDefaults,
  sftpConnectionFields,
  sftpSecretFields,
  type SftpSecrets,
} from '../sftp-shared/fields.js';

export const ifExistsChoices = ['fail', 'rename'] as const;

const sftpSenderFields = {
  ...sftpConnectionFields,
  remote_directory: remotePath.describe('Directory on the server that files are written below'),
  path_pattern: z
    .string()
    .max(512)
    .describe('Path of a file below remote_directory; placeholders {from}, {to}, {filename}, {id}'),
  if_exists: z
    .enum(ifExistsChoices)
    .describe(
      'When the file exists with other content: fail (and retry), or write the new one under a name of its own',
    ),
  format: formatField,
  max_concurrent_deliveries: maxConcurrentDeliveries.describe(
    'Deliveries worked on at the same time, over one SSH connection',
  ),
  ...retryFields,
  ...unreachableAlertFields,
};

const sftpSenderDefaults = {
  ...sftpConnectionDefaults,
  path_pattern: '{from}/{filename}',
  if_exists: 'fail',
  format: 'edi',
  max_concurrent_deliveries: 1,
  ...retryDefaults,
  ...unreachableAlertDefaults,
};

export const sftpSenderType = {
  type: 'sftp-sender',
  role: 'target',
  summary: "Writes delivered payloads as files on a partner's SFTP server",
  fields: sftpSenderFields,
  defaults: sftpSenderDefaults,
  secretFields: sftpSecretFields,
  urlField: 'host',
  problems: (s, secrets) => {
    const problems = retryProblems(s);
    const issue = patternProblem(s.path_pattern as string, ['from', 'to', 'filename', 'id']);
    if (issue) problems.path_pattern = issue;
    if (secrets) Object.assign(problems, credentialProblems(secrets as SftpSecrets));
    return problems;
  },
} satisfies PluginTypeDefinition;

export type SftpSenderSettings = SettingsOf<typeof sftpSenderType>;
