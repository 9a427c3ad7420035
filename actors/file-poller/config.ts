/** Configuration of the file poller (docs/api/plugin-configs.md): a directory watched for files to send. */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import {
  absolutePath,
  partyNameOrEmpty,
  readEdiEnvelope,
  threadsField,
  wholeNumber,
} from '../shared/fields.js';
import { pollerPatternProblems, processedDirectoryProblem } from '../shared/path-pattern.js';

const filePollerFields = {
  base_directory: absolutePath.describe('Directory watched for files'),
  processed_directory: absolutePath.describe('Where a file is moved once its message is accepted'),
  path_pattern: z
    .string()
    .max(512)
    .describe('Path of a file below base_directory; placeholders {from}, {to}, {filename}'),
  file_pattern: z.string().max(256).describe('File names taken, * and ? as wildcards'),
  polling_interval: wholeNumber(1, 86_400).describe('Seconds between two looks at the directory'),
  from: partyNameOrEmpty.describe('Sending party when path_pattern has no {from}'),
  to: partyNameOrEmpty.describe('Receiving party when path_pattern has no {to}'),
  read_edi_envelope: readEdiEnvelope,
  threads: threadsField(
    'Threads that take files, each with its own database connections and its share of the files ' +
      '(by their path; 0: one per 4 cores, at least one)',
  ),
};

const filePollerDefaults = {
  path_pattern: '{to}/{filename}',
  file_pattern: '*.*',
  polling_interval: 5, // seconds
  from: '',
  to: '',
  read_edi_envelope: true,
  threads: 0,
};

function filePollerProblems(raw: Record<string, unknown>): Record<string, string> {
  const s = raw as unknown as FilePollerSettings;
  const problems = pollerPatternProblems(s);
  const processedIssue = processedDirectoryProblem(s.processed_directory, s.base_directory, 'base_directory');
  if (processedIssue) problems.processed_directory = processedIssue;
  return problems;
}

export const filePollerType = {
  type: 'file-poller',
  role: 'source',
  summary: 'Takes files from a directory as messages',
  fields: filePollerFields,
  defaults: filePollerDefaults,
  secretFields: {},
  problems: filePollerProblems,
} satisfies PluginTypeDefinition;

export type FilePollerSettings = SettingsOf<typeof filePollerType>;
