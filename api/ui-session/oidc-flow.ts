/**
 * Sign-in at an identity provider by authorization code with PKCE (openid-client), with `state`
 * and `nonce`. What the callback needs to check the answer (state, nonce, code verifier) travels
 * in a short-lived cookie sealed by the secret box, so any process can finish a sign-in that
 * another one started, and a callback without that cookie (a replayed or forged one) is refused.
 */
import type * as OpenIdClient from 'openid-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProvider } from '../../storage/entities/identity.js';
import type { ApiContext } from '../context.js';
import { readCookie, setCookie } from './cookies.js';
import { secureCookies } from './session.js';
import { limits } from '../../limits/limits.js';

const pendingCookie = 'pier_sign_in';

/** openid-client (with jose) is loaded at the first sign-in through a provider, not by every process at its start. */
const openIdClient = (): Promise<typeof OpenIdClient> => import('openid-client');

interface Pending {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  startedAt: number;
}

export function redirectUri(ctx: ApiContext, provider: { name: string }): string {
  return `${ctx.options.publicUrl}/ui/auth/${provider.name}/callback`;
}

async function configurationOf(
  client: typeof OpenIdClient,
  ctx: ApiContext,
  provider: OidcProvider,
): Promise<OpenIdClient.Configuration> {
  const issuer = new URL(provider.issuer_url);
  return client.discovery(
    issuer,
    provider.client_id,
    ctx.identity.clientSecret(provider),
    undefined,
    // Plain http is allowed for localhost issuers only (the provider's rules, docs/api/oidc-providers.md).
    issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
  );
}

/** Sends the browser to the provider. */
export async function startSignIn(
  ctx: ApiContext,
  reply: FastifyReply,
  provider: OidcProvider,
): Promise<FastifyReply> {
  const client = await openIdClient();
  const config = await configurationOf(client, ctx, provider);
  const pending: Pending = {
    provider: provider.name,
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    startedAt: Date.now(),
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(ctx, provider),
    scope: provider.scopes,
    code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  });
  setCookie(reply, pendingCookie, ctx.secrets.seal(JSON.stringify(pending)), {
    path: '/ui/auth/',
    maxAge: limits.oidcSignInPendingSeconds,
    secure: secureCookies(ctx),
  });
  return reply.redirect(url.href, 302);
}

/** Checks the provider's answer; the identity (issuer, subject, name hints) or a thrown reason. */
export async function finishSignIn(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  provider: OidcProvider,
): Promise<{ subject: string; preferredName: string | undefined }> {
  const sealed = readCookie(request, pendingCookie);
  // The pending sign-in is used once, whatever the outcome.
  setCookie(reply, pendingCookie, '', { path: '/ui/auth/', maxAge: 0, secure: secureCookies(ctx) });
  if (!sealed) throw new Error('no sign-in was started in this browser (or it was already finished)');
  let pending: Pending;
  try {
    pending = JSON.parse(ctx.secrets.openText(sealed)) as Pending;
  } catch {
    throw new Error('the sign-in cookie is not one pier made');
  }
  if (pending.provider !== provider.name) throw new Error('the sign-in was started at another provider');
  if (Date.now() - pending.startedAt > limits.oidcSignInPendingSeconds * 1000)
    throw new Error('the sign-in took too long');
  const client = await openIdClient();
  const config = await configurationOf(client, ctx, provider);
  const current = new URL(request.url, ctx.options.publicUrl);
  const tokens = await client.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: pending.verifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims?.sub) throw new Error('the ID token has no subject');
  const preferred = claims.preferred_username ?? claims.email;
  return { subject: claims.sub, preferredName: typeof preferred === 'string' ? preferred : undefined };
}
