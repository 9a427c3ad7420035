/** GET /server-log (docs/api/server-log.md): the server's recent log lines and their filters. */
import { z } from 'zod';
import { singleLineText } from './common.js';

export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevelName = (typeof logLevels)[number];
/** Lines the server keeps: about the last few minutes of a busy server, a day of an idle one. */
export const recentLineCapacity = 2000;

/** Unknown parameters are refused, as on the other logs (audit, notifications). */
export const ServerLogQuery = z.strictObject({
  level: z
    .enum(logLevels, { error: `Must be one of: ${logLevels.join(', ')}` })
    .default('info')
    .describe('Lines at this level and above'),
  component: singleLineText(64)
    .optional()
    .describe("Only this part of pier's lines (as `components` lists them)"),
  limit: z.coerce
    .number({ error: 'Must be a whole number' })
    .int('Must be a whole number')
    .min(1, 'Must be at least 1')
    .default(200)
    .transform((n) => Math.min(n, recentLineCapacity))
    .describe(`Newest lines answered, at most ${recentLineCapacity}`),
});

export const ServerLogLine = z.object({
  time: z.string().describe('When, ISO-8601 UTC'),
  level: z.enum(logLevels),
  component: z
    .string()
    .describe("The plugin instance's type, else the component that wrote it, else http or server"),
  msg: z.string(),
  fields: z.record(z.string(), z.unknown()).describe("The line's other fields; secrets censored"),
});

export const ServerLogAnswer = z.object({
  lines: z.array(ServerLogLine).describe('Newest first'),
  components: z.array(z.string()).describe('The components of the lines kept, to filter by'),
  kept: z.number().int().describe(`Lines this process keeps now (the last ${recentLineCapacity} it wrote)`),
});
