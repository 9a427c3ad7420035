/**
 * Configuration of the program runner (docs/api/plugin-configs.md): a target that runs a
 * configured program for each document a route delivers to it, with the file and the
 * message's facts as arguments, like mendelson's event scripts and OpenAS2's processor
 * modules (docs/decisions/a-program-runs-as-a-route-s-target-without-a-shell.md).
 */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import {
  absolutePath,
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  wholeNumber,
} from '../shared/fields.js';
import { argumentPlaceholders, argumentProblem } from './arguments.js';

const placeholderList = Object.keys(argumentPlaceholders)
  .map((name) => `{${name}}`)
  .join(', ');

/** An executable named by its absolute path: what runs never depends on a search path. */
const programPath = z
  .string()
  .max(1024)
  .regex(/^\/.*[^/]$/, 'Must be the absolute path of a program file')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f]*$/, 'Must not contain control characters');

/** Names a shell and the C library accept as environment variables. */
const environmentName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'Use letters, digits and _, not starting with a digit');

const programRunnerFields = {
  program: programPath.describe('Absolute path of the program to run; it is run directly, never by a shell'),
  arguments: z
    .array(z.string().max(1024, 'Use at most 1024 characters'))
    .max(64, 'At most 64 arguments')
    .describe(`Arguments, one each, with placeholders ${placeholderList}; {{ and }} write a brace`),
  work_directory: absolutePath.describe(
    'Directory the document is written to for the run ({file}), and removed from after it',
  ),
  timeout_seconds: wholeNumber(1, 3600).describe(
    'Seconds the program may run; then it and its children are killed and the attempt fails',
  ),
  max_concurrent_deliveries: maxConcurrentDeliveries,
  ...retryFields,
};

const programRunnerDefaults = {
  arguments: ['{file}'],
  timeout_seconds: 60,
  max_concurrent_deliveries: 1,
  ...retryDefaults,
  max_attempts: 3,
};

const programRunnerSecrets = {
  environment: z
    .array(z.strictObject({ name: environmentName, value: z.string().max(4096) }))
    .max(32, 'At most 32 variables')
    .describe(
      'Write-only; environment variables the program gets (a password or token), never in its arguments; replaced as a whole',
    ),
};

export interface ProgramRunnerSecrets {
  environment?: { name: string; value: string }[];
}

/** Each argument's template checked; the first problem is named with the argument's number. */
function argumentsProblem(templates: readonly string[]): string | undefined {
  for (const [index, template] of templates.entries()) {
    const problem = argumentProblem(template);
    if (problem) return `Argument ${index + 1} (${JSON.stringify(template)}): ${problem}`;
  }
  return undefined;
}

export const programRunnerType = {
  type: 'program-runner',
  role: 'target',
  summary: 'Runs a program with each delivered document and its message’s facts as arguments',
  fields: programRunnerFields,
  defaults: programRunnerDefaults,
  secretFields: programRunnerSecrets,
  problems: (s) => {
    const problems = retryProblems(s);
    const issue = argumentsProblem(s.arguments as string[]);
    if (issue) problems.arguments = issue;
    return problems;
  },
} satisfies PluginTypeDefinition;

export type ProgramRunnerSettings = SettingsOf<typeof programRunnerType>;
