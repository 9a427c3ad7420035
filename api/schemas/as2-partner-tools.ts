/** Bodies and answers of the partner tools: connection check and test message (docs/api/as2-profiles.md). */
import { z } from 'zod';
import { CheckStepResult, recordName } from './common.js';

export const CheckConnectionBody = z.strictObject({
  sender: recordName.optional().describe('AS2 sender instance; may be left out when only one exists'),
});

export const CheckConnectionAnswer = z.object({
  ok: z.boolean(),
  sender: z.string(),
  endpoint: z.string(),
  steps: z.object({
    certificates: CheckStepResult,
    proxy: CheckStepResult.describe(
      'The outbound proxy the sender goes through (its proxy_url, HTTPS_PROXY or HTTP_PROXY; NO_PROXY respected), or none; with one, resolve and connect are the proxy’s and TLS runs inside its tunnel',
    ),
    resolve: CheckStepResult,
    connect: CheckStepResult,
    tls: CheckStepResult,
    http: CheckStepResult,
  }),
  problem: z.string().optional().describe('The first step that failed and why; only when ok is false'),
});

export const TestMessageBody = z.strictObject({
  sender: recordName.optional().describe('AS2 sender instance; may be left out when unambiguous'),
  organization: recordName.optional().describe('Sending organization; may be left out when unambiguous'),
});

export const TestMessageAnswer = z.object({
  message_id: z.uuid(),
  status: z.string(),
  file_name: z.string(),
});
