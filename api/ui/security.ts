/**
 * The web UI's browser protections (docs/api/authentication.md#browser-protections): a strict
 * Content-Security-Policy (no inline script or style, nothing from another origin), and
 * CSRF protection for every form. The CSRF token is a random value kept in an HttpOnly,
 * SameSite=Strict cookie and repeated in each form (double submit); a POST whose token does
 * not match, or whose Origin is another site, changes nothing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const csrfCookie = 'pier_csrf';
export const csrfField = '_csrf';
export const csrfHeader = 'x-csrf-token';

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function setSecurityHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Cache-Control', 'no-store');
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * The request's CSRF token; a new one is made (and set as cookie) when it has none. `secure`
 * follows PUBLIC_URL's scheme, as the session cookie does: behind a proxy that ends TLS the
 * request itself arrives over plain http.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = readCookie(request, csrfCookie);
  if (existing && tokenPattern.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  reply.header(
    'Set-Cookie',
    `${csrfCookie}=${token}; Path=/ui; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
  return token;
}

function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  // Browsers send Origin on every POST; a missing one is a non-browser client, which has no
  // ambient cookie to abuse, and still needs the token.
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** True when a body-changing request carries the cookie's token and comes from this origin. */
export function csrfValid(request: FastifyRequest, submitted: string | undefined): boolean {
  const cookie = readCookie(request, csrfCookie);
  const given = submitted ?? (request.headers[csrfHeader] as string | undefined);
  if (!cookie || !given || cookie.length !== given.length) return false;
  if (!timingSafeEqual(Buffer.from(cookie), Buffer.from(given))) return false;
  return sameOrigin(request);
}

/**
 * A file-upload form (multipart) carries no token: its body is a stream that the API route reads
 * after this check, and a token in the form's URL showed in the address bar and the request log.
 * Its proof is what only a page of this site makes a browser send: the SameSite=Strict cookie
 * (never sent from another site) and an Origin header naming this server (browsers send one on
 * every POST; without it, the token is still needed).
 */
export function uploadFormValid(request: FastifyRequest): boolean {
  const cookie = readCookie(request, csrfCookie);
  return (
    cookie !== undefined &&
    tokenPattern.test(cookie) &&
    request.headers.origin !== undefined &&
    sameOrigin(request)
  );
}
