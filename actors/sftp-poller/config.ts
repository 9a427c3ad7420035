/** Configuration of the SFTP poller: a directory on a partner's SFTP server watched for files. */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import { partyNameOrEmpty, wholeNumber } from '../shared/fields.js';
import { pollerPatternProblems, processedDirectoryProblem } from '../shared/path-pattern.js';
import {
  credentialProblems,
  remotePath,
  sftpConnectionDefaults,
  sftpConnectionFields,
  sftpSecretFields,
  type SftpSecrets,
} from '../sftp-shared/fields.js';

export const afterTakeChoices = ['move', 'delete'] as const;

const sftpPollerFields = {
  ...sftpConnectionFields,
  remote_directory: remotePath.describe('Directory on the server watched for files'),
  after_take: z
    .enum(afterTakeChoices)
    .describe(
      'What happens to a file on the server once its message is accepted: move it to processed_directory, or delete it',
    ),
  processed_directory: z
    .union([z.literal(''), remotePath])
    .describe('Directory on the server a taken file is moved to (after_take move); outside remote_directory'),
  path_pattern: z
    .string()
    .max(512)
    .describe('Path of a file below remote_directory; placeholders {from}, {to}, {filename}'),
  file_pattern: z.string().max(256).describe('File names taken, * and ? as wildcards'),
  polling_interval: wholeNumber(1, 86_400).describe(
    'Seconds between two looks; a file is taken when two looks in a row see the same size and time',
  ),
  from: partyNameOrEmpty.describe('Sending party when path_pattern has no {from}'),
  to: partyNameOrEmpty.describe('Receiving party when path_pattern has no {to}'),
};

const sftpPollerDefaults = {
  ...sftpConnectionDefaults,
  after_take: 'move',
  processed_directory: '',
  path_pattern: '{filename}',
  file_pattern: '*',
  polling_interval: 15, // seconds
  from: '',
  to: '',
};

function sftpPollerProblems(
  raw: Record<string, unknown>,
  secrets?: Record<string, unknown>,
): Record<string, string> {
  const s = raw as unknown as SftpPollerSettings;
  const problems = pollerPatternProblems(s);
  if (s.after_take === 'move') {
    const processedIssue =
      s.processed_directory === ''
        ? 'Required when after_take is move'
        : processedDirectoryProblem(s.processed_directory, s.remote_directory, 'remote_directory');
    if (processedIssue) problems.processed_directory = processedIssue;
  }
  if (secrets) Object.assign(problems, credentialProblems(secrets as SftpSecrets));
  return problems;
}

export const sftpPollerType = {
  type: 'sftp-poller',
  role: 'source',
  summary: "Takes files from a directory on a partner's SFTP server as messages",
  fields: sftpPollerFields,
  defaults: sftpPollerDefaults,
  secretFields: sftpSecretFields,
  urlField: 'host',
  problems: sftpPollerProblems,
} satisfies PluginTypeDefinition;

export type SftpPollerSettings = SettingsOf<typeof sftpPollerType>;
