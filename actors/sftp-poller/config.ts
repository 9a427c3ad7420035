/** Configuration of the SFTP poller: a directory on a partner's SFTP server watched for files. */
import { z } from 'zod';
import type { PluginTypeDefinition } from '../shared/definition.js';
import { partyNameOrEmpty, wholeNumber } from '../shared/fields.js';
import { globProblem, patternProblem, placeholdersOf } from '../shared/path-pattern.js';
import {
  credentialProblems,
  remotePath,
  sftpConnectionDefaults,
  sftpConnectionFields,
  sftpSecretFields,
  type SftpEndpoint,
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

export interface SftpPollerSettings extends SftpEndpoint {
  remote_directory: string;
  after_take: (typeof afterTakeChoices)[number];
  processed_directory: string;
  path_pattern: string;
  file_pattern: string;
  polling_interval: number;
  from: string;
  to: string;
}

function inside(dir: string, parent: string): boolean {
  const trim = (p: string) => p.replace(/\/+$/, '') || '/';
  const d = trim(dir);
  const p = trim(parent);
  return d === p || d.startsWith(p === '/' ? '/' : `${p}/`);
}

function sftpPollerProblems(
  raw: Record<string, unknown>,
  secrets?: Record<string, unknown>,
): Record<string, string> {
  const s = raw as unknown as SftpPollerSettings;
  const problems: Record<string, string> = {};
  const patternIssue = patternProblem(s.path_pattern, ['from', 'to', 'filename']);
  if (patternIssue) problems.path_pattern = patternIssue;
  else {
    const used = placeholdersOf(s.path_pattern);
    if (!used.has('from') && s.from === '') problems.from = 'Required when path_pattern has no {from}';
    if (!used.has('to') && s.to === '') problems.to = 'Required when path_pattern has no {to}';
  }
  const globIssue = globProblem(s.file_pattern);
  if (globIssue) problems.file_pattern = globIssue;
  if (s.after_take === 'move') {
    if (s.processed_directory === '') problems.processed_directory = 'Required when after_take is move';
    else if (inside(s.processed_directory, s.remote_directory))
      problems.processed_directory = 'Must not be remote_directory or inside it';
    else if (inside(s.remote_directory, s.processed_directory))
      problems.processed_directory = 'Must not contain remote_directory';
  }
  if (secrets) Object.assign(problems, credentialProblems(secrets as SftpSecrets));
  return problems;
}

export const sftpPollerType: PluginTypeDefinition = {
  type: 'sftp-poller',
  role: 'source',
  summary: "Takes files from a directory on a partner's SFTP server as messages",
  fields: sftpPollerFields,
  defaults: sftpPollerDefaults,
  secretFields: sftpSecretFields,
  urlField: 'host',
  problems: sftpPollerProblems,
};
