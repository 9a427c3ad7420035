/**
 * The answer to a request Node's HTTP parser refuses before fastify has a request to route: the
 * error envelope every other refusal has, instead of fastify's own `{"error":"Bad Request",…}`.
 * A client that half-closes its connection mid-body is told the body ended early, in the words
 * a spooled body's check uses; a reset connection has no one to answer.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorTable, type ErrorCode } from '../errors.js';

interface Refusal {
  code: ErrorCode;
  /** The error table's words when not given. */
  message?: string;
  details?: Record<string, string>;
}

/** The refusal for a parser error code; its status, and words not given, from the one error table. */
function refusalFor(code: string | undefined): Refusal {
  switch (code) {
    case 'HPE_INVALID_EOF_STATE':
      return {
        code: 'INVALID_INPUT',
        message: 'Invalid request body',
        details: { body: 'The request body ended early' },
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE' };
    default:
      return {
        code: 'INVALID_INPUT',
        message: 'Invalid request',
        details: { request: 'The request is not valid HTTP/1.1' },
      };
  }
}

/** fastify's clientErrorHandler: answers on the socket and closes it. */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message, details } = refusalFor(error.code);
  const { status } = errorTable[code];
  // The parser's own message can quote the request; only its code is logged.
  this.log.debug({ code: error.code, status }, 'a request refused before it was read');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = { code, message: message ?? errorTable[code].message, ...(details ? { details } : {}) };
  const body = JSON.stringify({ data: null, error: refusal });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
