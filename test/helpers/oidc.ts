/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 for the identity tests: client-credentials
 * tokens for machine clients, the authorization-code flow with its development login pages for
 * people, and its signing key for tokens a test shapes itself (wrong audience, expired, …).
 * `rotate()` replaces the signing key, as an identity provider does in a key rollover.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider, { errors as oidcErrors } from 'oidc-provider';
import type { Test } from 'tap';
import type { TestServer } from './server.js';

export const apiAudience = 'urn:pier:api';
export const apiScope = 'pier:api';

export interface TestIdp {
  issuer: string;
  /** The client of the web UI sign-in (authorization code + PKCE). */
  ui: { clientId: string; clientSecret: string };
  /** A machine client that gets tokens by the client-credentials grant; its tokens' `sub` is its id. */
  robot: { clientId: string; clientSecret: string };
  /** A client-credentials access token (a JWT) of the robot. */
  clientCredentialsToken(scope?: string): Promise<string>;
  /** A token signed with the provider's current key; claims default to a valid robot token. */
  sign(claims?: JWTPayload, options?: { alg?: string; kid?: string; omit?: string[] }): Promise<string>;
  /** A token whose payload is exactly this text (JSON that JSON.stringify cannot write, like 1e999). */
  signText(payload: string): Promise<string>;
  /** The current public key as a JWK. */
  publicJwk(): JWK;
  /** Replaces the signing key with a new one (new kid). */
  rotate(): Promise<void>;
  /** How many times the key set was fetched. */
  jwksFetches(): number;
  /** Sets the redirect URIs of the UI client (known once pier listens). */
  setRedirectUris(uris: string[]): void;
}

interface KeyPair {
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, use: 'sig', alg: 'RS256' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  return { kid, privateJwk, privateKey, publicJwk };
}

export async function startTestIdp(t: Test): Promise<TestIdp> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const ui = { clientId: 'pier-ui', clientSecret: 'ui-secret-0123456789' };
  const robot = { clientId: 'robot', clientSecret: 'robot-secret-0123456789' };
  let redirectUris = ['http://127.0.0.1/unused'];
  let key = await newKey('key-1');
  let generation = 1;
  let fetches = 0;

  const build = () =>
    new Provider(issuer, {
      jwks: { keys: [key.privateJwk as never] },
      clients: [
        {
          client_id: ui.clientId,
          client_secret: ui.clientSecret,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: redirectUris,
          token_endpoint_auth_method: 'client_secret_basic',
        },
        {
          client_id: robot.clientId,
          client_secret: robot.clientSecret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: `${apiScope} other`,
        },
      ],
      scopes: ['openid', 'profile', 'email', apiScope, 'other'],
      ttl: {
        ClientCredentials: 300,
        AccessToken: 300,
        IdToken: 300,
        Grant: 300,
        Session: 300,
        Interaction: 300,
      },
      features: {
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => apiAudience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => {
            if (resource !== apiAudience) throw new oidcErrors.InvalidTarget();
            return {
              scope: `${apiScope} other`,
              audience: apiAudience,
              accessTokenFormat: 'jwt',
              accessTokenTTL: 300,
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
    });
  let provider = build();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/jwks')) fetches++;
    return provider.callback()(request, response);
  };
  http.on('request', handle);
  // Every connection ended with it: one a client kept open would otherwise hold the file's process.
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );

  const idp: TestIdp = {
    issuer,
    ui,
    robot,
    async clientCredentialsToken(scope = apiScope) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${robot.clientId}:${robot.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: apiAudience }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async sign(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = {
        iss: issuer,
        sub: robot.clientId,
        aud: apiAudience,
        iat: now,
        exp: now + 300,
        scope: apiScope,
        ...claims,
      };
      for (const name of options.omit ?? []) delete payload[name];
      return new SignJWT(payload)
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    async signText(payload) {
      return new CompactSign(new TextEncoder().encode(payload))
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    publicJwk: () => key.publicJwk,
    async rotate() {
      key = await newKey(`key-${++generation}`);
      provider = build();
    },
    jwksFetches: () => fetches,
    setRedirectUris(uris) {
      redirectUris = uris;
      provider = build();
    },
  };
  return idp;
}

/**
 * Registers the test provider for API tokens (audience apiAudience, scope apiScope, no sign-in)
 * and its robot client as the federated service account `robot-sa`; their ids.
 */
export async function trustTestIdp(
  server: TestServer,
  idp: TestIdp,
): Promise<{ providerId: number; accountId: number }> {
  const provider = await server.call('POST', '/api/v1/oidc-providers', {
    body: {
      name: 'test-idp',
      issuer_url: idp.issuer,
      sign_in: false,
      scopes: '',
      api_audience: apiAudience,
      api_scopes: apiScope,
    },
  });
  const account = await server.call('POST', '/api/v1/service-accounts', {
    body: { name: 'robot-sa', kind: 'federated', oidc_issuer: idp.issuer, oidc_subject: idp.robot.clientId },
  });
  return { providerId: provider.body.data.id as number, accountId: account.body.data.id as number };
}
