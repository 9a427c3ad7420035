/**
 * The receipt (MDN) the receiver answers with, and the asynchronous delivery of it to the
 * partner's Receipt-Delivery-Option address, retried a few times in memory.
 */
import http from 'node:http';
import https from 'node:https';
import { buildMdn, type DispositionNotificationOptions, type Disposition, type Mic } from '../as2/index.js';
import { formatAs2Name, newMessageId } from '../as2-shared/headers.js';
import type { KeyPair } from '../as2-shared/material.js';

export interface ReceiptInput {
  identification: string;
  as2From: string;
  as2To: string;
  originalMessageId: string;
  disposition: Disposition;
  mic: Mic | null;
  options: DispositionNotificationOptions;
  signer: KeyPair | null;
  text: string;
  /** Never sign with SHA-1 or MD5 (AS2 modernisation draft), whatever the partner asks. */
  modernOnly?: boolean;
}

const weakDigests: readonly string[] = ['sha-1', 'md5'];

export interface Receipt {
  headers: Record<string, string>;
  body: Buffer;
  signed: boolean;
}

/** Signed when the partner asked for it and we have a signing key. */
export function makeReceipt(r: ReceiptInput): Receipt {
  const sign = r.options.signedReceipt && r.signer;
  const built = buildMdn(
    {
      reportingUa: r.identification,
      originalRecipient: r.as2To,
      finalRecipient: r.as2To,
      originalMessageId: r.originalMessageId,
      disposition: r.disposition,
      mic: r.mic,
      micSpelling: r.options.chosen?.name,
      text: r.text,
    },
    sign
      ? {
          digest:
            r.modernOnly && weakDigests.includes(r.options.chosen?.algorithm ?? '')
              ? 'sha-256'
              : (r.options.chosen?.algorithm ?? 'sha-256'),
          certificate: r.signer!.certificate,
          privateKey: r.signer!.privateKey,
        }
      : null,
  );
  return {
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': formatAs2Name(r.as2To),
      'AS2-To': formatAs2Name(r.as2From),
      'Message-ID': newMessageId(r.as2To),
      ...built.headers,
    },
    body: built.body,
    signed: built.signed,
  };
}

/** Waits between attempts of an asynchronous receipt, in ms. */
const asyncReceiptWaits = [0, 2_000, 10_000, 60_000, 300_000];

function postOnce(url: URL, receipt: Receipt, userAgent: string): Promise<string | null> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(url, {
      method: 'POST',
      headers: { ...receipt.headers, 'Content-Length': String(receipt.body.length), 'User-Agent': userAgent },
      timeout: 60_000,
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 60 s')));
    request.on('error', (error) => resolve(error.message));
    request.on('response', (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(status >= 200 && status < 300 ? null : `HTTP ${status}`);
    });
    request.end(receipt.body);
  });
}

/** Delivers an asynchronous receipt; resolves with the last problem, or null when delivered. */
export async function sendAsyncReceipt(
  address: string,
  receipt: Receipt,
  userAgent: string,
  stopped: () => boolean,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(address.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `not an http(s) address: ${address}`;
  } catch {
    return `not an address: ${address}`;
  }
  let problem: string | null = 'not attempted';
  for (const wait of asyncReceiptWaits) {
    if (stopped()) break;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    problem = await postOnce(url, receipt, userAgent);
    if (problem === null) return null;
  }
  return problem;
}
