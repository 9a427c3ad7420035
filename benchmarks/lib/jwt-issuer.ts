/**
 * A minimal identity provider for benchmarks: a discovery document and a key set on
 * 127.0.0.1, and RS256 access tokens signed with its key. The benchmark registers it as an
 * identity provider with a federated service account, so pier checks real JWTs against keys it
 * fetched once and then cached (no round trip per request).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';

export interface JwtIssuer {
  issuer: string;
  /** A token of `sub` for the audience, valid for an hour. */
  token(sub: string): Promise<string>;
  /** How many times the key set was fetched. */
  keyFetches(): number;
  close(): Promise<void>;
}

export const benchAudience = 'urn:pier:bench';

export async function startJwtIssuer(): Promise<JwtIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server = createServer((request, response) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration') {
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    } else if (request.url === '/jwks') {
      fetches++;
      response.end(JSON.stringify({ keys: [jwk] }));
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    token: (sub) =>
      new SignJWT({ scope: 'pier:api' })
        .setProtectedHeader({ alg: 'RS256', kid: 'bench-1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(benchAudience)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    keyFetches: () => fetches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Registers the issuer as a token-only identity provider and `sub` as a federated service account. */
export async function registerJwtCaller(databaseUrl: string, issuer: string, sub: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into oidc_provider (name, issuer_url, sign_in, scopes, api_audience, api_scopes)
       values ('bench-idp', $1, false, '', $2, 'pier:api')`,
      [issuer, benchAudience],
    );
    await client.query(
      `insert into service_account (name, kind, oidc_issuer, oidc_subject) values ('bench-jwt', 'federated', $1, $2)`,
      [issuer, sub],
    );
  } finally {
    await client.end();
  }
}
