/** Configuration of the file writer (docs/api/plugin-configs.md): delivers payloads as files into a directory. */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import { formatField } from '../shared/delivery-format.js';
import {
  absolutePath,
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  threadsField,
} from '../shared/fields.js';
import { patternProblem } from '../shared/path-pattern.js';

export const ifExistsChoices = ['fail', 'rename'] as const;

const fileWriterFields = {
  directory: absolutePath.describe('Directory files are written to'),
  path_pattern: z
    .string()
    .max(512)
    .describe('Path of a file below directory; placeholders {from}, {to}, {filename}, {id}'),
  if_exists: z
    .enum(ifExistsChoices)
    .describe('When the file exists with other content: fail (and retry), or rename the new one'),
  format: formatField,
  max_concurrent_deliveries: maxConcurrentDeliveries,
  threads: threadsField(
    'Threads that write files, each with its own database connections (0: one per 4 cores, at least ' +
      'one). Documents handed over by receivers of this process are spread over them; ' +
      'max_concurrent_deliveries counts for the writer as a whole and is shared out among them',
  ),
  ...retryFields,
};

const fileWriterDefaults = {
  format: 'edi',
  path_pattern: '{from}/{filename}',
  if_exists: 'fail',
  max_concurrent_deliveries: 1,
  threads: 0,
  ...retryDefaults,
};

export const fileWriterType = {
  type: 'file-writer',
  role: 'target',
  handoff: 'takes',
  summary: 'Writes delivered payloads as files',
  fields: fileWriterFields,
  defaults: fileWriterDefaults,
  secretFields: {},
  problems: (s) => {
    const problems = retryProblems(s);
    const issue = patternProblem(s.path_pattern as string, ['from', 'to', 'filename', 'id']);
    if (issue) problems.path_pattern = issue;
    return problems;
  },
} satisfies PluginTypeDefinition;

export type FileWriterSettings = SettingsOf<typeof fileWriterType>;
