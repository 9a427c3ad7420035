// Covers the JSON types of the claims pier reads from a validly signed identity-provider JWT: a claim of the wrong type is 401 INVALID_TOKEN, never a 500 and never a match by coercion (plain cases and property-based).
import fc from 'fast-check';
import type { JWTPayload } from 'jose';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { addUser } from '../../api/resources/users/service.js';
import { apiAudience, apiScope, startTestIdp, trustTestIdp } from '../helpers/oidc.js';
import { startTestServer } from '../helpers/server.js';

/** Bounded and seeded, so the file runs in seconds and a failure replays the same way. */
const runs = Number(process.env.PIER_FUZZ_RUNS ?? 120);
const seed = Number(process.env.PIER_FUZZ_SEED ?? 20261203);

const logLines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
const idp = await startTestIdp(t);
const server = await startTestServer(t, { logger });
const system = { kind: 'developer' as const, actor: 'system' };

await trustTestIdp(server, idp);
await addUser(server.ctx, system, { name: 'alice', oidc_issuer: idp.issuer, oidc_subject: 'alice-sub' });
// The text a lone surrogate becomes when encoded as UTF-8: a subject that must not be matched by one.
await addUser(server.ctx, system, { name: 'rex', oidc_issuer: idp.issuer, oidc_subject: '\ufffd' });
const registered = new Set(['alice-sub', idp.robot.clientId, '\ufffd']);

async function get(token: string) {
  return server.call('GET', '/api/v1/partners', { token });
}

async function refused(t: Test, claims: Record<string, unknown>, what: string) {
  const before = logLines.length;
  const r = await get(await idp.sign(claims as JWTPayload));
  t.equal(r.status, 401, what);
  t.same(r.body.error, { code: 'INVALID_TOKEN', message: 'Invalid token' }, `${what}: never says why`);
  const logged = logLines.slice(before).map((l) => JSON.parse(l) as { msg: string; reason?: string });
  t.ok(
    logged.some((l) => l.msg === 'Bearer token refused'),
    `${what}: logged as a refusal`,
  );
}

t.test('a sub that is not a string is refused, never matched and never a 500', async (t) => {
  t.equal((await get(await idp.sign({ sub: 'alice-sub' }))).status, 200, 'the exact subject is alice');
  await refused(t, { sub: ['alice-sub'] }, 'array sub');
  await refused(t, { sub: [['alice-sub']] }, 'nested array sub');
  await refused(t, { sub: 12345 }, 'number sub');
  await refused(t, { sub: true }, 'true sub');
  await refused(t, { sub: ['alice-sub', 'robot'] }, 'two-element array sub');
  await refused(t, { sub: { 0: 'alice-sub' } }, 'object sub');
  await refused(t, { sub: null }, 'null sub');
  await refused(t, { sub: '' }, 'empty sub');
});

t.test('a sub that PostgreSQL cannot hold exactly is refused', async (t) => {
  await refused(t, { sub: 'alice-sub\u0000' }, 'NUL in sub');
  await refused(t, { sub: '\ud800' }, 'a lone surrogate is not the subject its replacement character has');
});

t.test('every other claim pier reads is checked for its type', async (t) => {
  await refused(t, { iss: [idp.issuer] }, 'iss in a list');
  await refused(t, { aud: [apiAudience, 5] }, 'aud list with a number');
  await refused(t, { aud: { a: apiAudience } }, 'aud object');
  await refused(t, { exp: String(Math.floor(Date.now() / 1000) + 300) }, 'exp as text');
  await refused(t, { nbf: false }, 'nbf boolean');
  await refused(t, { iat: '0' }, 'iat as text');
  await refused(t, { scope: 42 }, 'scope number');
  await refused(t, { scope: undefined, scp: [apiScope, 7] }, 'scp list with a number');
  await refused(t, { azp: 5 }, 'azp number');
  await refused(t, { client_id: ['robot'] }, 'client_id list');
  const now = Math.floor(Date.now() / 1000);
  const forever = await idp.signText(
    `{"iss":${JSON.stringify(idp.issuer)},"sub":"alice-sub","aud":"${apiAudience}","iat":${now},"exp":1e999,"scope":"${apiScope}"}`,
  );
  const r = await get(forever);
  t.equal(r.status, 401, 'an exp that parses to Infinity never expires, so it is refused');
  t.equal(r.body.error.code, 'INVALID_TOKEN');
  t.equal((await get(await idp.sign({ sub: 'alice-sub', scope: [apiScope] }))).status, 200, 'scope list');
});

/** Arbitrary JSON, plus values close to a registered subject. */
const subjectLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    ...registered,
    'ALICE-SUB',
    ' alice-sub',
    'alice-sub ',
    'alice-sub\u0000',
    '\ud800',
    '\udfff',
  ),
  fc
    .tuple(fc.constantFrom(...registered), fc.integer({ min: 1, max: 3 }), fc.boolean())
    .map(([s, depth, object]) => {
      let value: unknown = s;
      for (let i = 0; i < depth; i++) value = object ? { [String(i)]: value } : [value];
      return value;
    }),
  fc.array(fc.constantFrom(...registered), { minLength: 2, maxLength: 3 }),
);

t.test('property: 200 only for the exact registered subject string', async (t) => {
  await fc.assert(
    fc.asyncProperty(subjectLike, async (sub) => {
      const r = await get(await idp.sign({ sub } as JWTPayload));
      if (typeof sub === 'string' && registered.has(sub)) return r.status === 200;
      return r.status === 401 && r.body.error?.code === 'INVALID_TOKEN';
    }),
    { seed, numRuns: runs },
  );
  t.pass(`${runs} subjects`);
});

/** The claims pier reads and the JSON types each may have. */
const strings = (v: unknown) => Array.isArray(v) && v.every((m) => typeof m === 'string');
const claimTypes: Record<string, (v: unknown) => boolean> = {
  iss: (v) => typeof v === 'string',
  sub: (v) => typeof v === 'string',
  aud: (v) => typeof v === 'string' || strings(v),
  exp: (v) => typeof v === 'number',
  nbf: (v) => typeof v === 'number',
  iat: (v) => typeof v === 'number',
  scope: (v) => typeof v === 'string' || strings(v),
  scp: (v) => typeof v === 'string' || strings(v),
  azp: (v) => typeof v === 'string',
  client_id: (v) => typeof v === 'string',
};

t.test('property: any claim pier reads with a value of another JSON type is refused', async (t) => {
  const wrong = fc
    .record({ claim: fc.constantFrom(...Object.keys(claimTypes)), value: fc.jsonValue() })
    .filter(({ claim, value }) => !claimTypes[claim]!(value));
  await fc.assert(
    fc.asyncProperty(wrong, async ({ claim, value }) => {
      const r = await get(await idp.sign({ sub: 'alice-sub', [claim]: value } as JWTPayload));
      return r.status === 401 && r.body.error?.code === 'INVALID_TOKEN';
    }),
    { seed, numRuns: runs },
  );
  t.pass(`${runs} claims`);
});

t.test('property: claims pier does not read change nothing', async (t) => {
  const extra = fc.dictionary(
    fc.string().filter((k) => !Object.hasOwn(claimTypes, k)),
    fc.jsonValue(),
    { maxKeys: 4 },
  );
  await fc.assert(
    fc.asyncProperty(extra, async (claims) => {
      const r = await get(await idp.sign({ ...claims, sub: 'alice-sub' }));
      return r.status === 200;
    }),
    { seed, numRuns: Math.ceil(runs / 2) },
  );
  t.pass('unread claims ignored');
});

t.test('no request ended in a server error', async (t) => {
  const errors = logLines
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level >= 50);
  t.same(errors, [], 'nothing logged at error level');
});
