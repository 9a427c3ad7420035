// Covers identity-provider JWTs on the API (docs/api/authentication.md, docs/api/conventions.md#errors) against a real oidc-provider:
// client-credentials tokens of a federated service account, users' tokens, and every refusal
// (401 INVALID_TOKEN that never says why, the reason in the log), key rotation and kid floods.
import { SignJWT, base64url, generateKeyPair } from 'jose';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { addUser, setUserEnabled } from '../../api/resources/users/service.js';
import { sql } from '../helpers/database.js';
import { apiAudience, apiScope, startTestIdp, trustTestIdp } from '../helpers/oidc.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const logLines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
const idp = await startTestIdp(t);
const server = await startTestServer(t, { logger });
const system = { kind: 'developer' as const, actor: 'system' };

const { providerId, accountId } = await trustTestIdp(server, idp);
await addUser(server.ctx, system, {
  name: 'alice',
  oidc_issuer: idp.issuer,
  oidc_subject: 'alice-sub',
  role: 'operator',
});

async function get(token: string) {
  return server.call('GET', '/api/v1/partners', { token });
}

async function refused(t: Test, token: string, reason: RegExp, what: string) {
  const before = logLines.length;
  const r = await get(token);
  t.equal(r.status, 401, what);
  t.same(r.body.error, { code: 'INVALID_TOKEN', message: 'Invalid token' }, `${what}: never says why`);
  const logged = logLines.slice(before).map((l) => JSON.parse(l) as { msg: string; reason?: string });
  t.match(
    logged.find((l) => l.msg === 'Bearer token refused')?.reason,
    reason,
    `${what}: the reason is in the log`,
  );
}

t.test('a client-credentials token of a registered federated account is accepted as sa:<name>', async (t) => {
  const token = await idp.clientCredentialsToken();
  t.equal((await get(token)).status, 200);
  const made = await server.call('POST', '/api/v1/partners', { token, body: { name: 'globex' } });
  t.equal(made.status, 201);
  const audit = await server.call('GET', '/api/v1/audit?kind=partner&record_name=globex');
  t.equal(audit.body.data.events[0].actor, 'sa:robot-sa');
  const listed = await server.call('GET', `/api/v1/service-accounts/${accountId}`);
  t.not(listed.body.data.last_used_at, null, 'last_used_at is recorded');
  t.equal((await server.call('GET', '/openapi.yaml', { token })).status, 200);
});

t.test("a user's token is accepted as the user; the clock tolerance is 30 seconds", async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const token = await idp.sign({ sub: 'alice-sub', exp: now - 10 });
  const r = await server.call('POST', '/api/v1/partners', { token, body: { name: 'initech' } });
  t.equal(r.status, 201, 'expired 10 s ago is inside the tolerance');
  const audit = await server.call('GET', '/api/v1/audit?kind=partner&record_name=initech');
  t.equal(audit.body.data.events[0].actor, 'alice');
  t.equal((await get(await idp.sign({ scope: undefined, scp: [apiScope, 'x'] }))).status, 200, 'scp list');
  t.equal((await get(await idp.sign({ scope: undefined, scp: apiScope }))).status, 200, 'scp text');
});

t.test('every refusal is 401 INVALID_TOKEN', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const other = await generateKeyPair('RS256');
  const forged = await new SignJWT({ iss: idp.issuer, sub: 'robot', aud: apiAudience, scope: apiScope })
    .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(other.privateKey);
  await refused(t, forged, /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/, 'wrong signature');
  await refused(
    t,
    await idp.sign({ iss: 'http://127.0.0.1:1/other' }),
    /no identity provider has issuer/,
    'unknown issuer',
  );
  await refused(
    t,
    await idp.sign({ iss: `${idp.issuer}/` }),
    /no identity provider has issuer/,
    'issuer not exactly equal',
  );
  await refused(
    t,
    await idp.sign({ aud: 'urn:somebody-else' }),
    /ERR_JWT_CLAIM_VALIDATION_FAILED.*aud/,
    'wrong audience',
  );
  await refused(t, await idp.sign({}, { omit: ['aud'] }), /no audience/, 'empty audience without the flag');
  await refused(t, await idp.sign({ exp: now - 120 }), /ERR_JWT_EXPIRED/, 'expired');
  await refused(
    t,
    await idp.sign({ nbf: now + 120 }),
    /ERR_JWT_CLAIM_VALIDATION_FAILED.*nbf/,
    'not yet valid',
  );
  await refused(t, await idp.sign({}, { omit: ['exp'] }), /exp/, 'no expiry');
  await refused(t, await idp.sign({ scope: 'other' }), /lacks scopes pier:api/, 'missing scope (scope)');
  await refused(
    t,
    await idp.sign({ scope: undefined, scp: ['other'] }),
    /lacks scopes pier:api/,
    'missing scope (scp)',
  );
  await refused(
    t,
    await idp.sign({ sub: 'mallory' }),
    /subject mallory .* is not registered/,
    'unregistered subject',
  );

  const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
  const body = base64url.encode(
    JSON.stringify({ iss: idp.issuer, sub: 'robot', aud: apiAudience, exp: now + 300, scope: apiScope }),
  );
  await refused(t, `${header}.${body}.`, /algorithm none is not allowed/, 'alg none');
  const hmacKey = new TextEncoder().encode(JSON.stringify(idp.publicJwk()));
  const hs = await new SignJWT({ iss: idp.issuer, sub: 'robot', aud: apiAudience, scope: apiScope })
    .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
    .setExpirationTime('5m')
    .sign(hmacKey);
  await refused(t, hs, /algorithm HS256 is not allowed/, 'HS256 signed with the public key');
  await refused(t, 'abc.def.ghi', /not a well-formed JWT/, 'garbage in JWT shape');
});

t.test('disabled user, account and provider are refused; enabling again accepts', async (t) => {
  const alice = await idp.sign({ sub: 'alice-sub' });
  await setUserEnabled(server.ctx, system, 'alice', false);
  await refused(t, alice, /user alice is disabled/, 'disabled user');
  await setUserEnabled(server.ctx, system, 'alice', true);
  t.equal((await get(alice)).status, 200);

  const robot = await idp.clientCredentialsToken();
  await server.call('PUT', `/api/v1/service-accounts/${accountId}`, { body: { enabled: false } });
  await refused(t, robot, /service account robot-sa is disabled/, 'disabled account');
  await server.call('PUT', `/api/v1/service-accounts/${accountId}`, { body: { enabled: true } });
  t.equal((await get(robot)).status, 200);

  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, { body: { enabled: false } });
  await refused(t, robot, /identity provider test-idp is disabled/, 'disabled provider');
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, { body: { enabled: true } });
  t.equal((await get(robot)).status, 200);
});

t.test('empty audience only with the flag and only for a federated account', async (t) => {
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, {
    body: { accept_tokens_without_audience: true },
  });
  t.equal((await get(await idp.sign({}, { omit: ['aud'] }))).status, 200, 'federated account, no aud');
  t.equal((await get(await idp.sign({ aud: [] }))).status, 200, 'empty aud list');
  await refused(
    t,
    await idp.sign({ sub: 'alice-sub' }, { omit: ['aud'] }),
    /not a federated account/,
    'user without aud',
  );
  await refused(t, await idp.sign({ aud: 'urn:somebody-else' }), /aud/, 'a wrong audience is still wrong');
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, {
    body: { accept_tokens_without_audience: false },
  });
  await refused(t, await idp.sign({}, { omit: ['aud'] }), /no audience/, 'flag off again');
});

t.test('api_audience empty means the client id; api_scopes empty needs none', async (t) => {
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, {
    body: { api_audience: '', client_id: 'pier-client', api_scopes: '' },
  });
  t.equal((await get(await idp.sign({ aud: 'pier-client', scope: '' }))).status, 200);
  await refused(t, await idp.sign(), /aud/, 'the old audience no longer counts');
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, {
    body: { api_audience: apiAudience, api_scopes: apiScope },
  });
});

t.test('key rotation: an unknown kid refetches the keys at most once per cooldown', async (t) => {
  const cooldownMs = 4000;
  server.ctx.identity.configure({ jwksCooldownMs: cooldownMs });
  const firstFetches = idp.jwksFetches();
  // Taken before the fetch, so the bound below is never stricter than the cooldown itself.
  const fetchedAt = Date.now();
  t.equal((await get(await idp.sign())).status, 200);
  t.equal(idp.jwksFetches(), firstFetches + 1, 'the keys were fetched');
  /** Fetches the cooldown allows since the first one (a slow machine may pass a cooldown mid-flood). */
  const allowed = () => 1 + Math.floor((Date.now() - fetchedAt) / cooldownMs);
  await idp.rotate();
  const rotated = await idp.sign();
  const flood = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => (await get(await idp.sign({}, { kid: `bogus-${i}` }))).status),
  );
  t.same(flood, Array(8).fill(401));
  t.ok(idp.jwksFetches() - firstFetches <= allowed(), 'no fetch per unknown kid');
  await new Promise((r) => setTimeout(r, Math.max(0, fetchedAt + cooldownMs + 300 - Date.now())));
  const rotatedAt = Date.now();
  t.equal((await get(rotated)).status, 200, 'accepted once the new keys are fetched');
  const afterRotation = idp.jwksFetches();
  t.ok(afterRotation - firstFetches >= 2, 'the new kid caused a fetch');
  const again = await Promise.all(
    Array.from(
      { length: 8 },
      async (_, i) => (await get(await idp.sign({}, { kid: `bogus-again-${i}` }))).status,
    ),
  );
  t.same(again, Array(8).fill(401));
  t.ok(
    idp.jwksFetches() - afterRotation <= Math.floor((Date.now() - rotatedAt) / cooldownMs),
    'no further fetch within the cooldown',
  );
});

t.test('a provider change counts in another process without a restart', async (t) => {
  const second = await startTestServer(t, { db: server.db });
  const robot = await idp.clientCredentialsToken();
  const call2 = () => second.call('GET', '/api/v1/partners', { token: robot });
  t.equal((await call2()).status, 200);
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, { body: { enabled: false } });
  await waitFor(async () => (await call2()).status === 401, 'the other process to refuse');
  await server.call('PUT', `/api/v1/oidc-providers/${providerId}`, { body: { enabled: true } });
  await waitFor(async () => (await call2()).status === 200, 'the other process to accept again');
  const rows = await sql(
    server.db.url,
    "select count(*)::int as n from audit_event where kind = 'oidc-provider'",
  );
  t.ok((rows[0]!.n as number) >= 3);
});
