/** Small helpers over AS2 HTTP headers shared by the receiver and the sender. */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** One header's value as text: repeated headers joined, absent as undefined. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** AS2 names may be quoted (RFC 4130 §6.2): `"ACME Corp"` → `ACME Corp`. */
export function as2Name(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"'))
    return trimmed.slice(1, -1).replace(/\\(.)/g, '$1');
  return trimmed;
}

/** Quotes an AS2 name when it holds a blank (RFC 4130 §6.2). */
export function formatAs2Name(name: string): string {
  return /[\s"\\]/.test(name) ? `"${name.replace(/["\\]/g, (c) => `\\${c}`)}"` : name;
}

/** A unique RFC 5322 Message-ID with its angle brackets. */
/** A fresh Message-ID (receipts, test messages). */
export function newMessageId(domainHint: string): string {
  return messageIdFor(randomUUID(), domainHint);
}

/**
 * The Message-ID of a pier message sent by AS2: the same for every attempt, retry and
 * redelivery of that message, so a partner that already processed it recognises a resend
 * as a duplicate (RFC 4130 §9.3 asks for resends to keep the Message-ID).
 */
export function messageIdFor(messageId: string, domainHint: string): string {
  const domain = domainHint.replace(/[^A-Za-z0-9.-]/g, '').slice(0, 60) || 'pier';
  return `<pier-${messageId}@${domain}>`;
}

/** The header section as it travelled: `Name: value` CRLF lines and an empty line. */
export function headerSection(rawHeaders: readonly string[]): Buffer {
  let text = '';
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) text += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return Buffer.from(`${text}\r\n`, 'latin1');
}

/** An entity (headers + body) as stored for the `receipt` stage, and read back. */
export function entityBytes(headers: Record<string, string>, body: Buffer): Buffer {
  let text = '';
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${text}\r\n`, 'latin1'), body]);
}

export function splitEntity(bytes: Buffer): { headers: Record<string, string>; body: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  const head = end < 0 ? '' : bytes.subarray(0, end).toString('latin1');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return { headers, body: end < 0 ? bytes : bytes.subarray(end + 4) };
}
