// Covers a key rollover right after an unknown-kid fetch with the default key cache: the new key is accepted within the refetch cooldown and a little, and a flood of made-up kids still fetches at most once per cooldown.
import t from 'tap';
import { startTestIdp, trustTestIdp } from '../helpers/oidc.js';
import { startTestServer } from '../helpers/server.js';

/** The default cooldown (docs/decisions/key-refetch-cooldown-5-seconds.md) and the slack a busy machine needs. */
const cooldownMs = 5_000;
const slackMs = 2_000;

const idp = await startTestIdp(t);
const server = await startTestServer(t);
await trustTestIdp(server, idp);

async function status(token: string): Promise<number> {
  return (await server.call('GET', '/api/v1/partners', { token })).status;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a key rotated in just after an unknown-kid fetch is accepted within the cooldown', async (t) => {
  const before = idp.jwksFetches();
  t.equal(await status(await idp.sign({}, { kid: 'made-up' })), 401, 'an unknown kid is refused');
  t.equal(idp.jwksFetches(), before + 1, 'the unknown kid fetched the keys');
  // Taken after the fetch ended, so the cooldown (counted from the fetch) is over by this + cooldownMs.
  const fetchedAt = Date.now();

  await sleep(200);
  await idp.rotate();
  const rotated = await idp.sign();
  const deadline = fetchedAt + cooldownMs + slackMs;
  let accepted = false;
  while (!accepted && Date.now() < deadline) {
    // Each try is itself an unknown kid: the tries must not fetch once each.
    accepted = (await status(rotated)) === 200;
    if (!accepted) await sleep(100);
  }
  const acceptedAfterMs = Date.now() - fetchedAt;
  t.ok(
    accepted,
    `the rotated key is accepted within ${cooldownMs + slackMs} ms (after ${acceptedAfterMs} ms)`,
  );
  t.ok(
    idp.jwksFetches() - before <= 1 + Math.ceil(acceptedAfterMs / cooldownMs),
    'at most one fetch per cooldown while it was refused',
  );
});

t.test('a flood of made-up kids fetches the keys at most once per cooldown', async (t) => {
  const before = idp.jwksFetches();
  const startedAt = Date.now();
  const flood = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => status(await idp.sign({}, { kid: `bogus-${i}` }))),
  );
  t.same(flood, Array(40).fill(401));
  t.ok(
    idp.jwksFetches() - before <= Math.floor((Date.now() - startedAt) / cooldownMs) + 1,
    'one fetch per cooldown at most',
  );
  t.equal(await status(await idp.sign()), 200, 'the current key still works');
});
