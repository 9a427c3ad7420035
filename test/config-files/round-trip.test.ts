// Covers configuration files over the API: export → apply to an empty install → export gives the
// same file; a plan changes nothing; applying twice changes nothing the second time; a file that
// does not validate is refused with every problem by its path and changes nothing; --prune deletes
// only what the file leaves out; secrets never appear in an export, a plan, an answer or a log line;
// every change is audited under the token that applied it.
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';

const partnerPassword = 'acme-basic-Secret-77';
const posterPassword = 'poster-Secret-31';
process.env.PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD = partnerPassword;
process.env.PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD = posterPassword;

const logLines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

const f = makeFixtures(t);
for (const name of ['ours', 'acme', 'globex']) f.selfSigned(name, `/O=${name}/CN=${name}.example`);

const source = await startTestServer(t, { logger });
const target = await startTestServer(t, { logger });

async function ok(server: TestServer, method: string, url: string, body?: unknown) {
  const answer = await server.call(method, url, body === undefined ? {} : { body });
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.raw}`);
  return answer.body?.data;
}

async function store(name: string, withKey: boolean): Promise<number> {
  const answer = await uploadCertificate(source, {
    certificate: f.read(`${name}.crt`),
    ...(withKey ? { private_key: f.read(`${name}.key`) } : {}),
    description: name,
  });
  if (answer.status !== 201) throw new Error(`upload of ${name} failed: ${answer.raw}`);
  return answer.body.data.id as number;
}

// The source install: an organization with its AS2 profile, two partners, instances, a route.
const ours = await store('ours', true);
const acmeCert = await store('acme', false);
const globexCert = await store('globex', false);
const org = await ok(source, 'POST', '/api/v1/organizations', { name: 'ours', display_name: 'Our company' });
await ok(source, 'POST', '/api/v1/as2/local-profiles', {
  local_organization_id: org.id,
  as2id: 'OURS',
  signing_certificate_id: ours,
});
const acme = await ok(source, 'POST', '/api/v1/partners', {
  name: 'acme',
  interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }],
  x12_acknowledgement: '997',
});
const globex = await ok(source, 'POST', '/api/v1/partners', { name: 'globex', speaks_for: ['acme'] });
await ok(source, 'POST', '/api/v1/as2/remote-profiles', {
  business_partner_id: acme.id,
  as2id: 'ACME',
  endpoint: 'https://as2.acme.example/as2',
  partner_certificate_id: acmeCert,
  http_basic_user: 'pier',
  http_basic_password: partnerPassword,
});
await ok(source, 'POST', '/api/v1/as2/remote-profiles', {
  business_partner_id: globex.id,
  as2id: 'GLOBEX',
  endpoint: 'https://as2.globex.example/as2',
  partner_certificate_id: globexCert,
});
await ok(source, 'POST', '/api/v1/plugins/configs?type=file-poller', {
  name: 'inbox',
  enabled: false,
  base_directory: '/srv/pier/in',
  processed_directory: '/srv/pier/done',
  from: 'acme',
  to: 'ours',
});
await ok(source, 'POST', '/api/v1/plugins/configs?type=http-poster', {
  name: 'erp-post',
  enabled: false,
  url: 'https://erp.example/in',
  http_basic_username: 'pier',
  http_basic_password: posterPassword,
});
await ok(source, 'POST', '/api/v1/routes', {
  name: 'acme-to-erp',
  source_plugin: 'inbox',
  from: 'acme',
  to: 'ours',
  target_plugin: 'erp-post',
});
await ok(source, 'POST', '/api/v1/routes', {
  name: 'globex-to-erp',
  source_plugin: 'inbox',
  from: 'globex',
  to: 'ours',
  target_plugin: 'erp-post',
});
await ok(source, 'PUT', '/api/v1/settings', { delivery_max_dispatches: 7 });

const exported = await ok(source, 'GET', '/api/v1/config');
const sealed = await source.call('GET', '/api/v1/config?format=yaml&seal_keys=true');
/** The newest audit event's id: events after it are what a step wrote. */
const auditCount = async (server: TestServer) =>
  Number(
    (await sql<{ n: string }>(server.db.url, 'select coalesce(max(id), 0) as n from audit_event'))[0]!.n,
  );
const never = (t: Test, text: string, where: string) => {
  t.notOk(text.includes(partnerPassword), `${where}: not the partner's password`);
  t.notOk(text.includes(posterPassword), `${where}: not the instance's password`);
};

t.test('the export names everything by name and writes secrets as references', async (t) => {
  t.equal(exported.pier_config, 1);
  const acmeOut = exported.partners.find((p: { name: string }) => p.name === 'acme');
  t.equal(acmeOut.as2.partner_certificate, 'acme', 'a certificate by its name');
  t.equal(acmeOut.as2.http_basic_password, '${env:PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD}');
  t.same(exported.instances.find((i: { name: string }) => i.name === 'erp-post').secrets, {
    http_basic_password: '${env:PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD}',
  });
  t.equal(exported.certificates.find((c: { name: string }) => c.name === 'ours').private_key, 'stored');
  t.equal(sealed.status, 200);
  t.match(sealed.headers['content-type'], /^text\/yaml/);
  t.ok(parse(sealed.raw).certificates.find((c: { name: string }) => c.name === 'ours').private_key.sealed);
  t.notMatch(JSON.stringify(exported), /_id"|_certificate_ids"|"id":\s*\d/, 'no database ids');
  never(t, JSON.stringify(exported) + sealed.raw, 'export');

  const one = await ok(source, 'GET', '/api/v1/config?partner=globex');
  t.same(
    one.partners.map((p: { name: string }) => p.name),
    ['globex'],
  );
  t.same(
    one.certificates.map((c: { name: string }) => c.name),
    ['globex'],
    'only the certificates it names',
  );
  t.same(
    one.routes.map((r: { name: string }) => r.name),
    ['globex-to-erp'],
  );
});

t.test('a plan on an empty install lists creations and changes nothing', async (t) => {
  const before = await auditCount(target);
  const plan = await target.call('POST', '/api/v1/config/plan', { body: { document: sealed.raw } });
  t.equal(plan.status, 200, plan.status === 200 ? 'planned' : plan.raw);
  const created = plan.body.data.changes.map((c: { action: string; section: string; name: string }) =>
    [c.action, c.section, c.name].join(' '),
  );
  t.ok(created.includes('create partners acme'));
  t.ok(created.includes('create routes acme-to-erp'));
  const acmePlan = plan.body.data.changes.find(
    (c: { name: string; section: string }) => c.name === 'acme' && c.section === 'partners',
  );
  t.same(
    acmePlan.changes.find((c: { field: string }) => c.field === 'as2.http_basic_password'),
    { field: 'as2.http_basic_password', secret: true },
    'a secret is named, never valued',
  );
  t.ok(
    acmePlan.changes.find((c: { field: string; new: unknown }) => c.field === 'as2.endpoint' && c.new),
    'field by field',
  );
  never(t, plan.raw, 'plan');
  t.equal(await auditCount(target), before, 'no audit event');
  t.same((await ok(target, 'GET', '/api/v1/partners')).partners, [], 'no partner');
});

t.test('apply to the empty install, then export: the same file; twice: no change', async (t) => {
  const firstEvent = await auditCount(target);
  const applied = await target.call('POST', '/api/v1/config/apply', { body: { document: sealed.raw } });
  t.equal(applied.status, 200, applied.status === 200 ? 'applied' : applied.raw);
  never(t, applied.raw, 'apply answer');
  t.same(await ok(target, 'GET', '/api/v1/config'), exported, 'export → apply → export is equal');

  const actors = await sql<{ actor: string }>(
    target.db.url,
    'select distinct actor from audit_event where id > $1',
    [firstEvent],
  );
  t.same(
    actors.map((a) => a.actor),
    ['sa:tester'],
    'every change under the token that applied it',
  );
  const stored = await sql<{ n: string }>(
    target.db.url,
    "select count(*) as n from audit_event where kind = 'partner' and action = 'create'",
  );
  t.equal(stored[0]!.n, '2');

  const before = await auditCount(target);
  const again = await target.call('POST', '/api/v1/config/apply', { body: { document: sealed.raw } });
  t.equal(again.status, 200, again.raw);
  t.same(again.body.data.changes, [], 'nothing to change');
  t.same(
    await sql(target.db.url, 'select kind, record_name, changes from audit_event where id > $1', [before]),
    [],
    'and nothing audited',
  );

  // The target resolves the partner's password from its own environment.
  const password = await sql<{ http_basic_password: string | null }>(
    target.db.url,
    'select http_basic_password from as2_remote_profile where as2id = $1',
    ['ACME'],
  );
  t.ok(password[0]!.http_basic_password, 'the password is stored (sealed)');
  t.notOk(password[0]!.http_basic_password!.includes(partnerPassword));
});

t.test('an invalid file is refused with every problem by its path, and nothing changes', async (t) => {
  const file = parse(sealed.raw);
  file.partners[0].as2.endpoint = 'ftp://as2.acme.example';
  file.partners[1].display_name = 'x'.repeat(300);
  file.routes[0].target_plugin = 'nowhere';
  file.instances[0].secrets = { nope: '${env:PIER_INSTANCE_X}' };
  file.partners[1].as2.partner_certificate = 'missing';
  file.organizations[0].name = 'ours';
  file.organizations.push({ name: 'other', as2: { as2id: 'X', signing_certificate: 'globex', bogus: 1 } });
  const before = await auditCount(target);
  const answer = await target.call('POST', '/api/v1/config/apply', {
    body: { document: JSON.stringify(file) },
  });
  t.equal(answer.status, 400);
  t.equal(answer.body.error.code, 'INVALID_INPUT');
  t.same(Object.keys(answer.body.error.details).sort(), [
    'organizations[1].as2.bogus',
    'partners[1].display_name',
  ]);
  t.match(answer.body.error.details['partners[1].display_name'], /200/);

  delete file.partners[1].display_name;
  file.organizations.pop();
  const second = await target.call('POST', '/api/v1/config/apply', {
    body: { document: JSON.stringify(file) },
  });
  t.equal(second.status, 400, second.raw);
  t.same(Object.keys(second.body.error.details).sort(), [
    'instances[0].secrets.nope',
    'partners[0].as2.endpoint',
    'partners[1].as2.partner_certificate',
    'routes[0].target_plugin',
  ]);
  t.equal(await auditCount(target), before, 'nothing audited');
  t.same(await ok(target, 'GET', '/api/v1/config'), exported, 'nothing changed');

  const yaml = await target.call('POST', '/api/v1/config/plan', { body: { document: 'partners: [' } });
  t.equal(yaml.status, 400);
  t.match(Object.keys(yaml.body.error.details)[0], /^\(file\)/);
});

t.test('--prune deletes what the file leaves out, and nothing else', async (t) => {
  const file = parse(sealed.raw);
  file.partners = file.partners.filter((p: { name: string }) => p.name !== 'globex');
  file.routes = file.routes.filter((r: { name: string }) => r.name !== 'globex-to-erp');
  file.certificates = file.certificates.filter((c: { name: string }) => c.name !== 'globex');
  const document = JSON.stringify(file);

  const without = await target.call('POST', '/api/v1/config/apply', { body: { document } });
  t.same(without.body.data.changes, [], 'without --prune nothing is deleted');

  const pruned = await target.call('POST', '/api/v1/config/apply', { body: { document, prune: true } });
  t.equal(pruned.status, 200, pruned.raw);
  t.same(
    pruned.body.data.changes.map((c: { action: string; section: string; name: string }) =>
      [c.action, c.section, c.name].join(' '),
    ),
    ['delete certificates globex', 'delete partners globex', 'delete routes globex-to-erp'],
  );
  const after = await ok(target, 'GET', '/api/v1/config');
  t.same(
    after.partners.map((p: { name: string }) => p.name),
    ['acme'],
  );
  t.same(after.instances, exported.instances, 'instances untouched');
});

t.test(
  'roles: a viewer exports, an operator plans, only an admin applies or takes sealed keys',
  async (t) => {
    const tokenWithRole = async (name: string, role: string): Promise<string> => {
      await ok(target, 'POST', '/api/v1/service-accounts', { name, role });
      return (await ok(target, 'POST', '/api/v1/api-tokens', { service_account: name, label: 'x' })).token;
    };
    const viewer = await tokenWithRole('watcher', 'viewer');
    const operator = await tokenWithRole('ops', 'operator');
    t.equal((await target.call('GET', '/api/v1/config', { token: viewer })).status, 200);
    const sealedByViewer = await target.call('GET', '/api/v1/config?seal_keys=true', { token: viewer });
    t.equal(sealedByViewer.status, 403);
    t.equal(sealedByViewer.body.error.code, 'INSUFFICIENT_ROLE');
    const document = JSON.stringify(exported);
    t.equal(
      (await target.call('POST', '/api/v1/config/plan', { body: { document }, token: viewer })).status,
      403,
    );
    t.equal(
      (await target.call('POST', '/api/v1/config/plan', { body: { document }, token: operator })).status,
      200,
    );
    const applied = await target.call('POST', '/api/v1/config/apply', {
      body: { document },
      token: operator,
    });
    t.equal(applied.status, 403);
    t.same(applied.body.error.details, { role: 'operator', required: 'admin' });
  },
);

t.test('apply needs a caller, the JSON Schema is public, and no log line holds a secret', async (t) => {
  const unauthenticated = await target.call('POST', '/api/v1/config/apply', {
    body: { document: sealed.raw },
    token: null,
  });
  t.equal(unauthenticated.status, 401);
  const schema = await target.call('GET', '/api/v1/config/schema', { token: null });
  t.equal(schema.status, 200);
  t.ok(schema.body.data.properties.partners, 'the JSON Schema is published');
  never(t, logLines.join(''), 'logs');
});
