/** The SFTP module's own operations: the connection check and pinning the server's host key. */
import { z } from 'zod';
import { CheckStepResult, singleLineText } from './common.js';

export const SftpCheckAnswer = z.object({
  ok: z.boolean(),
  steps: z.object({
    resolve: CheckStepResult,
    connect: CheckStepResult,
    host_key: CheckStepResult,
    authenticate: CheckStepResult,
    list: CheckStepResult,
    write: CheckStepResult,
  }),
  problem: z
    .string()
    .optional()
    .describe('`<step>: <detail>` of the first step that failed; only when ok is false'),
  host_key: z.object({
    presented: z
      .string()
      .nullable()
      .describe(
        'The fingerprint the server presents (SHA256:…); null when the check did not reach the server',
      ),
    pinned: z.string().describe('The pinned fingerprint; empty when none is pinned yet'),
    matches: z.boolean(),
  }),
});

export const PinHostKeyBody = z.strictObject({
  fingerprint: singleLineText(80).describe(
    'The fingerprint to pin, exactly as the check showed it and the partner confirmed it; the server must present it now',
  ),
});
