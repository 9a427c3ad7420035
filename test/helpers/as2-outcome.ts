/**
 * What became of the messages a retrying AS2 partner sent (as2-retrying-client.ts), read from
 * the database and the writer's directory: the failover test asserts each list is empty, the
 * failover benchmark reports their lengths.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Test } from 'tap';
import type { SentMessage } from './as2-retrying-client.js';
import { query } from './auto-failover.js';

export interface As2Outcome {
  sent: number;
  withReceipt: number;
  /** Messages sent more than once (an answer without a receipt came first). */
  sentAgain: number;
  /** Answers that were not a receipt, by HTTP status (0: no answer). */
  answersWithoutReceipt: Record<string, number>;
  /** 503 answers without `Retry-After`, or with a disposition (a receipt) in them. */
  bad503s: number;
  /** File names of messages with a receipt that have no file. */
  receiptedNotWritten: string[];
  /** … whose file holds other bytes than the document. */
  writtenWrong: string[];
  /** Message-IDs stored more than once. */
  storedTwice: string[];
  /** Message-IDs stored though they never got a receipt. */
  storedWithoutReceipt: string[];
  /** Files no receipted message accounts for (a document written twice would be one). */
  otherFiles: string[];
}

export async function as2Outcome(url: string, sent: SentMessage[], directory: string): Promise<As2Outcome> {
  const stored = new Map(
    (
      await query<{ as2: string; n: number }>(
        url,
        "select as2_message_id as as2, count(*)::int as n from as2_message where direction = 'inbound' group by 1",
      )
    ).map((r) => [r.as2, r.n]),
  );
  const names = new Set((await readdir(directory).catch(() => [])).filter((f) => !f.startsWith('.')));
  const received = sent.filter((m) => m.receiptAt !== null);
  const statuses: Record<string, number> = {};
  for (const m of sent)
    for (const a of m.answers) if (a.problem !== null) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const receiptedNotWritten: string[] = [];
  const writtenWrong: string[] = [];
  for (const m of received) {
    if (!names.has(m.fileName)) receiptedNotWritten.push(m.fileName);
    else if (!(await readFile(path.join(directory, m.fileName))).equals(m.document))
      writtenWrong.push(m.fileName);
  }
  const expected = new Set(received.map((m) => m.fileName));
  return {
    sent: sent.length,
    withReceipt: received.length,
    sentAgain: sent.filter((m) => m.answers.length > 1).length,
    answersWithoutReceipt: statuses,
    bad503s: sent
      .flatMap((m) => m.answers)
      .filter((a) => a.status === 503 && (a.retryAfter === undefined || a.disposition)).length,
    receiptedNotWritten,
    writtenWrong,
    storedTwice: sent.filter((m) => (stored.get(m.messageId) ?? 0) > 1).map((m) => m.messageId),
    storedWithoutReceipt: sent
      .filter((m) => m.receiptAt === null && stored.has(m.messageId))
      .map((m) => m.messageId),
    otherFiles: [...names].filter((name) => !expected.has(name)),
  };
}

/** What a run without failures must show: every message receipted, written once with its bytes, stored once. */
export function eachReceiptedAndWrittenOnce(t: Test, outcome: As2Outcome): void {
  t.equal(outcome.withReceipt, outcome.sent, `every one of ${outcome.sent} messages has its receipt`);
  t.same(outcome.receiptedNotWritten, [], 'every receipted document is written');
  t.same(outcome.writtenWrong, [], 'with its bytes');
  t.same(outcome.storedTwice, [], 'nothing stored twice');
  t.same(outcome.otherFiles, [], 'no other file');
}
