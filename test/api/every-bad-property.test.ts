// Covers docs/api/conventions.md#errors "one entry per rejected field" on the resources whose rules run in a second phase: a create or update of an organization, a partner, a route, a local or remote AS2 profile and a plugin configuration whose body has several bad properties, some refused by their type and some by a rule over the record (an id that is not the path's, a reference to nothing, an address that is not a URL, a retry wait shorter than the first), is one 400 INVALID_INPUT whose details name every one of them, and changes nothing.
import t, { type Test } from 'tap';
import { organization, partner, storeCertificate, syncSigned } from '../helpers/as2.js';
import { must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { makeParties } from '../as2/parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;

const bobCert = await storeCertificate(server, fixtures, 'bob');
const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
const bobId = await organization(server, 'bob', 'BOB', bobCert);
const aliceId = await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, syncSigned);
await must(server, '/plugins/configs?type=as2-receiver', { name: 'in', enabled: false, port: 10099 });
await must(server, '/plugins/configs?type=file-writer', {
  name: 'out',
  enabled: false,
  directory: '/tmp/pier-out',
});
const route = await must(server, '/routes', {
  source_plugin: 'in',
  from: 'alice',
  to: 'bob',
  target_plugin: 'out',
});
const routeId = route.body.data.id as number;

/** The request is one 400 INVALID_INPUT naming exactly `fields`; the record is as before. */
async function refused(
  t: Test,
  method: 'POST' | 'PUT',
  url: string,
  body: Record<string, unknown>,
  fields: string[],
  unchanged?: string,
) {
  const before = unchanged ? (await server.call('GET', unchanged)).body : null;
  const answer = await server.call(method, url, { body });
  t.equal(answer.status, 400, `${method} ${url}: 400`);
  t.equal(answer.body.error?.code, 'INVALID_INPUT');
  t.equal(answer.body.error?.message, 'Validation failed');
  const details = (answer.body.error?.details ?? {}) as Record<string, string>;
  t.same(
    Object.keys(details).sort(),
    [...fields].sort(),
    `every bad property named: ${JSON.stringify(details)}`,
  );
  for (const field of fields) t.type(details[field], 'string', `${field} has a message`);
  if (unchanged) t.same((await server.call('GET', unchanged)).body, before, 'nothing changed');
  return details;
}

t.test('organizations and partners', async (t) => {
  await refused(t, 'POST', '/api/v1/organizations', { name: 'Not A Name', display_name: 5, colour: 'red' }, [
    'name',
    'display_name',
    'colour',
  ]);
  const details = await refused(
    t,
    'PUT',
    `/api/v1/organizations/${bobId}`,
    { id: bobId + 1000, name: 'Not A Name' },
    ['id', 'name'],
    `/api/v1/organizations/${bobId}`,
  );
  t.match(details.id, /path names/);
  await refused(
    t,
    'PUT',
    `/api/v1/partners/${aliceId}`,
    { id: aliceId + 1000, display_name: 7 },
    ['id', 'display_name'],
    `/api/v1/partners/${aliceId}`,
  );
});

t.test('routes', async (t) => {
  const details = await refused(
    t,
    'POST',
    '/api/v1/routes',
    { source_plugin: 'nosuch', from: 'Not A Name', to: 'nobody', target_plugin: 5 },
    ['source_plugin', 'from', 'to', 'target_plugin'],
  );
  t.match(details.source_plugin, /No plugin instance is named nosuch/);
  t.match(details.to, /No organization or partner is named nobody/);
  await refused(
    t,
    'PUT',
    `/api/v1/routes/${routeId}`,
    { id: routeId + 1000, from: 'Not A Name', target_plugin: 'in' },
    ['id', 'from', 'target_plugin'],
    `/api/v1/routes/${routeId}`,
  );
});

t.test('local AS2 profiles', async (t) => {
  const details = await refused(
    t,
    'POST',
    '/api/v1/as2/local-profiles',
    { local_organization_id: 99_999, as2id: '', signing_certificate_id: 99_999, async_mdn_url: 'ftp://x' },
    ['local_organization_id', 'as2id', 'signing_certificate_id', 'async_mdn_url'],
  );
  t.match(details.local_organization_id, /does not exist/);
  t.match(details.signing_certificate_id, /does not exist/);
  await refused(
    t,
    'PUT',
    `/api/v1/as2/local-profiles/${bobId}`,
    { local_organization_id: bobId + 1000, as2id: '', decryption_certificate_ids: [99_999] },
    ['local_organization_id', 'as2id', 'decryption_certificate_ids'],
    `/api/v1/as2/local-profiles/${bobId}`,
  );
});

t.test('remote AS2 profiles', async (t) => {
  const details = await refused(
    t,
    'POST',
    '/api/v1/as2/remote-profiles',
    {
      business_partner_id: 99_999,
      as2id: 'CAROL',
      endpoint: 'not a url',
      partner_certificate_id: 99_999,
      compression: 'yes',
      max_message_mib: 0,
    },
    // The signature certificates default to the partner certificate, so it is named there too.
    [
      'business_partner_id',
      'endpoint',
      'partner_certificate_id',
      'signature_certificate_ids',
      'compression',
      'max_message_mib',
    ],
  );
  t.match(details.business_partner_id, /does not exist/);
  t.match(details.partner_certificate_id, /does not exist/);
  await refused(
    t,
    'PUT',
    `/api/v1/as2/remote-profiles/${aliceId}`,
    {
      business_partner_id: aliceId + 1000,
      endpoint: 'ftp://x',
      mdn_mode: 'often',
      signature_certificate_ids: [99_999],
    },
    ['business_partner_id', 'endpoint', 'mdn_mode', 'signature_certificate_ids'],
    `/api/v1/as2/remote-profiles/${aliceId}`,
  );
});

t.test('plugin configurations', async (t) => {
  const details = await refused(
    t,
    'POST',
    '/api/v1/plugins/configs?type=as2-receiver',
    { name: 'in2', port: 0, host: '', tls_certificate_id: 99_999 },
    ['port', 'host', 'tls_certificate_id'],
  );
  t.match(details.tls_certificate_id, /99999/);
  await refused(
    t,
    'POST',
    '/api/v1/plugins/configs?type=file-writer',
    { name: 'in', directory: 'relative', retry_interval: 100, retry_max_interval: 10 },
    ['name', 'directory', 'retry_max_interval'],
  );
  await refused(
    t,
    'PUT',
    '/api/v1/plugins/configs/file-writer/out',
    { name: 'other', directory: 'relative', retry_interval: 100, retry_max_interval: 10 },
    ['name', 'directory', 'retry_max_interval'],
    '/api/v1/plugins/configs/file-writer/out',
  );
});
