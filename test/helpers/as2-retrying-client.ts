/**
 * An AS2 partner that keeps sending, for the failover test and benchmark: `concurrency` senders
 * post messages packed by pier's packer (compressed, signed, encrypted, a signed synchronous
 * receipt asked for) to the receivers' URLs in turn, as a partner behind a load balancer would.
 * A message counts as received only with a `processed` receipt carrying its MIC; any other
 * answer (503, a connection error, anything else) is written down and the same message, with
 * the same Message-ID, is sent again after a moment, as RFC 4130 senders do, until it has its
 * receipt or the client is stopped.
 */
import http from 'node:http';
import type { KeyObject, X509Certificate } from 'node:crypto';
import { formatMic, packOutgoing } from '../../actors/as2/index.js';
import { as2Headers } from './as2.js';
import { waitFor } from './wait.js';

export interface As2Keys {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

/** One message and what the receivers answered to each of its copies. */
export interface SentMessage {
  index: number;
  messageId: string;
  /** The document's file name, which the writer's path pattern names the file after. */
  fileName: string;
  document: Buffer;
  /**
   * Per copy sent: the HTTP status (0: no answer, the connection failed), what was wrong,
   * its Retry-After, and whether the answer carried a disposition (a receipt) at all.
   */
  answers: {
    status: number;
    problem: string | null;
    at: number;
    retryAfter?: string;
    disposition: boolean;
  }[];
  /** When the processed receipt came, if it did (ms since the epoch). */
  receiptAt: number | null;
}

export interface As2Load {
  messages: SentMessage[];
  /** Receipts so far. */
  readonly receipts: number;
  /** Stops sending new messages; a message without its receipt is sent again until `giveUpMs` has passed. */
  stop(giveUpMs: number): Promise<SentMessage[]>;
}

/** Milliseconds before a copy goes again after an answer that was not a receipt. */
const againAfterMs = 250;

export function as2Document(index: number, bytes: number): Buffer {
  const line = `UNH+${index}+ORDERS:D:96A:UN'BGM+220+${index}+9'\n`;
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

export interface As2LoadOptions {
  urls: string[];
  keys: As2Keys;
  concurrency: number;
  documentBytes: number;
  /** Tells one Message-ID's run from another's when several loads send to one database. */
  run: string;
  /** Compressed before it is signed unless false (a large body then stays large on the wire). */
  compress?: boolean;
  /**
   * Connections kept for the next message unless false. False: a connection per message, so that
   * threads sharing a port (SO_REUSEPORT) are each given messages: the kernel picks a thread per
   * connection, and a dozen kept connections left one of four threads without any now and then.
   */
  keepAlive?: boolean;
}

/** A load sent until `receipts` receipts came (within `withinMs`), then stopped with `stop(giveUpMs)`: what it sent. */
export async function sendUntilReceipts(
  options: As2LoadOptions & { receipts: number; withinMs: number; giveUpMs: number },
): Promise<SentMessage[]> {
  const { receipts, withinMs, giveUpMs } = options;
  const load = startAs2Load(options);
  await waitFor(() => load.receipts >= receipts || undefined, `${receipts} receipts`, withinMs, 50);
  return load.stop(giveUpMs);
}

export function startAs2Load(options: As2LoadOptions): As2Load {
  const { urls, keys } = options;
  const messages: SentMessage[] = [];
  const agent = new http.Agent({ keepAlive: options.keepAlive ?? true, maxSockets: options.concurrency * 2 });
  let next = 0;
  let receipts = 0;
  let stopped = false;
  let giveUpAt = Infinity;

  const pack = (document: Buffer, fileName: string) =>
    packOutgoing(document, {
      contentType: 'application/edifact',
      filename: fileName,
      compress: options.compress === false ? 'off' : 'before-sign',
      sign: { algorithm: 'sha-256', certificate: keys.certificate, privateKey: keys.privateKey },
      encrypt: { algorithm: 'aes256-cbc', certificate: keys.certificate },
    });

  const sender = async (senderNumber: number) => {
    while (!stopped) {
      const index = next++;
      const fileName = `${options.run}-${index}.edi`;
      const document = as2Document(index, options.documentBytes);
      const packed = pack(document, fileName);
      const message: SentMessage = {
        index,
        messageId: `<${options.run}-${index}@alice.example>`,
        fileName,
        document,
        answers: [],
        receiptAt: null,
      };
      messages.push(message);
      const mic = formatMic(packed.mic);
      for (let copy = 0; Date.now() < giveUpAt; copy++) {
        const url = urls[(senderNumber + copy) % urls.length]!;
        const answer = await post(
          url,
          packed.body,
          { ...as2Headers('ALICE', message.messageId), ...packed.headers },
          agent,
        );
        const problem = answer.status === 200 ? receiptProblem(answer.body, mic) : `HTTP ${answer.status}`;
        message.answers.push({
          status: answer.status,
          problem,
          at: Date.now(),
          ...(answer.retryAfter === undefined ? {} : { retryAfter: answer.retryAfter }),
          disposition: /^Disposition:/im.test(answer.body.toString('latin1')),
        });
        if (problem === null) {
          message.receiptAt = Date.now();
          receipts++;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, againAfterMs));
      }
    }
  };
  const senders = Array.from({ length: options.concurrency }, (_, i) => sender(i));
  return {
    messages,
    get receipts() {
      return receipts;
    },
    async stop(giveUpMs) {
      stopped = true;
      giveUpAt = Date.now() + giveUpMs;
      await Promise.all(senders);
      agent.destroy();
      return messages;
    },
  };
}

/** Null for a receipt that says `processed` with the MIC expected; else what is wrong. */
function receiptProblem(body: Buffer, mic: string): string | null {
  const text = body.toString('latin1');
  const disposition = /^Disposition:[ \t]*([^\r\n]*)/im.exec(text)?.[1] ?? '';
  const received = /^Received-Content-MIC:[ \t]*([^\r\n]*)/im.exec(text)?.[1]?.trim() ?? '';
  if (!/;\s*processed\s*$/.test(disposition)) return `disposition ${disposition || '(none)'}`;
  if (received !== mic) return `MIC ${received}, expected ${mic}`;
  return null;
}

function post(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  agent: http.Agent,
): Promise<{ status: number; body: Buffer; retryAfter?: string }> {
  return new Promise<{ status: number; body: Buffer; retryAfter?: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: 60_000,
        headers: { ...headers, 'Content-Length': String(body.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        const retryAfter = response.headers['retry-after'];
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks),
            ...(retryAfter === undefined ? {} : { retryAfter }),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 60 s')));
    request.on('error', reject);
    request.end(body);
  }).catch(() => ({ status: 0, body: Buffer.alloc(0) }));
}
