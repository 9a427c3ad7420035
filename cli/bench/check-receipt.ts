/**
 * Every answer checked as the AS2 sender checks it (actors/as2-shared/judge-receipt.ts: the
 * receipt's signature, disposition and MIC against the one computed at build time), and its
 * Original-Message-ID against the message fired. The outcome is null or a kind of failure:
 * `http-<status>`, `no-receipt`, `receipt-malformed`, `receipt-signature`, `receipt-unsigned`,
 * `disposition`, `mic`, `mic-missing`, `original-message-id`.
 */
import { judgeReceipt } from '../../actors/as2-shared/judge-receipt.js';
import type { ReceiptMode } from './shape.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Expected {
  messageId: string;
  mic: string;
  receipts: ReceiptMode;
  /** The message is signed (a MIC in the receipt then proves what was received). */
  signed: boolean;
  /** A signed receipt was asked for: an unsigned one fails. */
  receiptSigned: boolean;
}

/** Failure kinds in the order a table lists them. */
export const failureKinds = [
  'connection',
  'timeout',
  'no-receipt',
  'receipt-malformed',
  'receipt-signature',
  'receipt-unsigned',
  'disposition',
  'mic',
  'mic-missing',
  'original-message-id',
] as const;

/** The HTTP answer to a message: a failure kind or null (for async, only the acceptance). */
export function checkHttpAnswer(
  answer: Answer,
  expected: Expected,
  verificationPems: string[],
): string | null {
  if (answer.status < 200 || answer.status >= 300) return `http-${answer.status}`;
  if (expected.receipts === 'none' || expected.receipts === 'async') return null;
  if (answer.body.length === 0) return 'no-receipt';
  return checkReceipt(answer.body, answer.headers, expected, verificationPems);
}

/** A receipt (synchronous or asynchronous) for the message `expected`. */
export function checkReceipt(
  body: Buffer,
  headers: Record<string, string>,
  expected: Expected,
  verificationPems: string[],
): string | null {
  const verdict = judgeReceipt(body, headers, verificationPems, {
    mic: expected.mic,
    signed: expected.signed,
    mdn_signed: expected.receiptSigned,
  });
  const failure = verdict.failure;
  // A receipt that cannot be trusted says nothing of which message it is for.
  if (failure === 'malformed' || failure === 'signature' || failure === 'unsigned')
    return `receipt-${failure}`;
  if (verdict.originalMessageId?.trim() !== expected.messageId) return 'original-message-id';
  if (!verdict.ok) return failure ?? 'receipt-malformed';
  return null;
}
