/** Setting schemas several plugin types share. Pure zod, so the web forms can use them too. */
import { z } from 'zod';
import { unfitDirectory } from './directory-path.js';

/** A directory on the server's file system, written as an absolute path, fit to hold pier's files. */
export const absolutePath = z
  .string()
  .max(1024)
  .regex(/^\//, 'Must be an absolute path')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f]*$/, 'Must not contain control characters')
  .superRefine((value, ctx) => {
    const unfit = value.startsWith('/') ? unfitDirectory(value) : undefined;
    if (unfit) ctx.addIssue({ code: 'custom', message: unfit });
  });

/** A party name in a configuration; empty where the setting is not needed. */
export const partyNameOrEmpty = z
  .string()
  .max(64)
  .regex(/^[a-z0-9_-]*$/, 'Use only lower case letters, digits, _ or -');

export const wholeNumber = (min: number, max: number) =>
  z.number().int('Must be a whole number').min(min).max(max);

/** How many deliveries an instance works on at the same time (docs/api/plugin-configs.md, docs/api/conventions.md#limits). */
export const maxConcurrentDeliveries = wholeNumber(1, 100);

/**
 * A target's threads (actors/shared/instance-threads.ts), 0: one per
 * `limits.coresPerTargetThread` cores (thread-count.ts); `description` says what each does.
 */
export const threadsField = (description: string) => wholeNumber(0, 256).describe(description);

/** Retry settings of every target: a failed attempt is tried again after a growing wait. */
export const retryFields = {
  /** Attempts in all, the first included, before the delivery is failed. */
  max_attempts: wholeNumber(1, 100),
  /** Seconds before the second attempt. */
  retry_interval: wholeNumber(1, 86_400),
  /** Each further wait is the previous one times this factor. */
  retry_backoff: z.number().min(1).max(10),
  /** Seconds a wait never exceeds. */
  retry_max_interval: wholeNumber(1, 86_400),
};

export const retryDefaults = {
  max_attempts: 10,
  retry_interval: 30, // seconds
  retry_backoff: 2,
  retry_max_interval: 3600, // seconds
};

/**
 * When a target's partner counts as unreachable (alert `partner_unreachable`): after this many
 * failed attempts in a row that an unreachable partner makes (refused, DNS, TLS, timeout, 5xx),
 * or this long after the first of them with no success since, whichever comes first.
 */
export const unreachableAlertFields = {
  unreachable_alert_attempts: wholeNumber(1, 1000).describe(
    'Failed attempts in a row (refused, DNS, TLS, timeout, 5xx) after which partner_unreachable is raised',
  ),
  unreachable_alert_seconds: wholeNumber(10, 86_400).describe(
    'Seconds after a first such failure, with no success since, after which partner_unreachable is raised',
  ),
};

export const unreachableAlertDefaults = {
  unreachable_alert_attempts: 3,
  unreachable_alert_seconds: 300, // five minutes
};

export function retryProblems(s: Record<string, unknown>): Record<string, string> {
  const problems: Record<string, string> = {};
  if ((s.retry_max_interval as number) < (s.retry_interval as number)) {
    problems.retry_max_interval = 'Must be at least retry_interval';
  }
  return problems;
}

/** HTTP header names (RFC 9110 token) that a configuration may add to requests. */
const headerName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'Must be a valid HTTP header name');

/** Headers the HTTP client manages itself; a configured value would break the request. */
const managedHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

// eslint-disable-next-line no-control-regex
const noControlExceptTab = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;

/** An additional header list: write-only, replaced as a whole, `[]` removes it. */
export const headerList = z
  .array(
    z.strictObject({
      name: headerName.refine((n) => !managedHeaders.has(n.toLowerCase()), 'This header is set by pier'),
      value: z
        .string()
        .max(4096)
        .regex(noControlExceptTab, 'Must not contain line breaks or control characters'),
    }),
  )
  .max(50);
export type HeaderList = z.output<typeof headerList>;

/** A write-only password. */
export const password = z
  .string()
  .max(256)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters');

export const userName = z
  .string()
  .max(256)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f:]*$/, 'Must not contain control characters or a colon');

/**
 * Whether a source reads the EDI envelope of each payload it takes (docs/partner-setup.md, "EDI
 * routing and acknowledgements"). Off, payloads are routed by the transport's parties alone and
 * nothing is acknowledged.
 */
export const readEdiEnvelope = z
  .boolean()
  .describe(
    'Read the X12 or EDIFACT envelope of each payload: parties from interchange ids, routes by document type, functional acknowledgements',
  );
