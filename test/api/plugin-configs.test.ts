// Covers plugin configurations (docs/api/plugin-configs.md, docs/api/conventions.md#write-only-values/9): types, defaults, unique names across types, write-only values, URL rules, audit.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const configs = '/api/v1/plugins/configs';
await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });

t.test('type is required and must be known', async (t) => {
  const missing = await server.call('POST', configs, { body: { name: 'x' } });
  t.equal(missing.status, 400);
  t.same(missing.body.error, { code: 'MISSING_TYPE', message: 'The query parameter type is required' });
  const unknown = await server.call('POST', `${configs}?type=ftp-poller`, { body: { name: 'x' } });
  t.equal(unknown.status, 400);
  t.same(unknown.body.error, { code: 'INVALID_TYPE', message: 'Unknown plugin type ftp-poller' });
  const get = await server.call('GET', `${configs}/ftp-poller/x`);
  t.equal(get.body.error.code, 'INVALID_TYPE');
});

t.test('every type is created with its defaults filled in', async (t) => {
  const bodies: Record<string, Record<string, unknown>> = {
    'file-poller': { name: 'fp', base_directory: '/srv/in', processed_directory: '/srv/done', from: 'acme' },
    'file-writer': { name: 'fw', directory: '/srv/out' },
    'http-poster': { name: 'hp', url: 'https://erp.example/inbound' },
    'as2-receiver': { name: 'ar' },
    'as2-sender': { name: 'as' },
    'notification-webhook': { name: 'nw', url: 'https://hooks.example/x' },
  };
  const expected: Record<string, Record<string, unknown>> = {
    'file-poller': {
      path_pattern: '{to}/{filename}',
      file_pattern: '*.*',
      polling_interval: 5,
      to: '',
    },
    'file-writer': { path_pattern: '{from}/{filename}', max_concurrent_deliveries: 1, if_exists: 'fail' },
    'http-poster': {
      max_concurrent_deliveries: 5,
      content_type: 'application/octet-stream',
      max_attempts: 10,
    },
    'as2-receiver': { port: 10080, path: '/as2' },
    'as2-sender': { max_concurrent_deliveries: 5 },
    'notification-webhook': { format: 'json', secrets_set: ['url'] },
  };
  for (const [type, body] of Object.entries(bodies)) {
    const made = await server.call('POST', `${configs}?type=${type}`, { body });
    t.equal(made.status, 201, `${type} created`);
    t.match(made.body.data, { type, name: body.name, enabled: true, ...expected[type] }, type);
    const got = await server.call('GET', `${configs}/${type}/${body.name}`);
    const { service: _service, ...record } = made.body.data;
    t.same(got.body.data, record, `${type} reads back as created`);
    const again = await server.call('PUT', `${configs}/${type}/${body.name}`, { body: got.body.data });
    t.equal(again.status, 200, `${type}: a record read back can be sent again`);
  }
  t.notOk(
    'url' in (await server.call('GET', `${configs}/notification-webhook/nw`)).body.data,
    'webhook URL is write-only',
  );
});

t.test('names are unique across all types', async (t) => {
  const first = await server.call('POST', `${configs}?type=file-writer`, {
    body: { name: 'shared', directory: '/srv/x', enabled: false },
  });
  t.equal(first.status, 201);
  const otherType = await server.call('POST', `${configs}?type=http-poster`, {
    body: { name: 'shared', url: 'http://127.0.0.1:1/x' },
  });
  t.equal(otherType.status, 400);
  t.same(otherType.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { name: 'Is the name of a file-writer instance' },
  });
  const sameType = await server.call('POST', `${configs}?type=file-writer`, {
    body: { name: 'shared', directory: '/srv/y' },
  });
  t.equal(sameType.status, 409);
  t.equal(sameType.body.error.code, 'CONFLICT');
  t.equal(sameType.body.error.message, 'A file-writer named shared exists');
  const upper = await server.call('POST', `${configs}?type=file-writer`, {
    body: { name: 'Shared', directory: '/x' },
  });
  t.equal(upper.status, 400, 'names are lower case');
});

t.test('write-only values are never returned, kept when left out, replaced, removed', async (t) => {
  const secretHeader = 'X-Api-Key';
  const made = await server.call('POST', `${configs}?type=http-poster`, {
    body: {
      name: 'erp',
      url: 'https://erp.example/in',
      http_basic_username: 'pier',
      http_basic_password: 'hunter2-secret',
      http_headers: [{ name: secretHeader, value: 'header-secret-value' }],
    },
  });
  t.equal(made.status, 201);
  t.notOk('http_basic_password' in made.body.data);
  t.notOk('http_headers' in made.body.data);
  t.same(made.body.data.secrets_set, ['http_basic_password', 'http_headers']);
  t.notMatch(made.raw, /hunter2|header-secret/);

  const [row] = await sql(server.db.url, "select secrets::text as s from plugin_config where name = 'erp'");
  t.notMatch(String(row!.s), /hunter2|header-secret/, 'stored sealed, not in plain text');

  const kept = await server.call('PUT', `${configs}/http-poster/erp`, { body: { timeout_seconds: 30 } });
  t.equal(kept.status, 200);
  t.same(kept.body.data.secrets_set, ['http_basic_password', 'http_headers'], 'left out: kept');

  const removed = await server.call('PUT', `${configs}/http-poster/erp`, { body: { http_headers: [] } });
  t.same(removed.body.data.secrets_set, ['http_basic_password'], 'an empty list removes the headers');

  const urlAlone = await server.call('PUT', `${configs}/http-poster/erp`, {
    body: { url: 'https://other.example/in' },
  });
  t.equal(urlAlone.status, 400);
  t.same(urlAlone.body.error.details, { url: 'Changing url needs http_basic_password sent again' });
  const still = await server.call('GET', `${configs}/http-poster/erp`);
  t.equal(still.body.data.url, 'https://erp.example/in', 'the refused update changed nothing');

  const withSecret = await server.call('PUT', `${configs}/http-poster/erp`, {
    body: { url: 'https://other.example/in', http_basic_password: 'new-secret-pw' },
  });
  t.equal(withSecret.status, 200);
  t.equal(withSecret.body.data.url, 'https://other.example/in');

  const audit = await server.call('GET', '/api/v1/audit?kind=plugin-config&record_name=http-poster/erp');
  t.ok(audit.body.data.total >= 3);
  t.notMatch(audit.raw, /hunter2|header-secret|new-secret-pw/, 'the audit log names secrets without values');
  const create = audit.body.data.events.find((e: { action: string }) => e.action === 'create');
  t.same(
    create.changes.filter((c: { field: string }) => c.field.startsWith('http_basic_password')),
    [{ field: 'http_basic_password', secret: true }],
  );
});

t.test('webhook URL is itself write-only and needed on create', async (t) => {
  const none = await server.call('POST', `${configs}?type=notification-webhook`, { body: { name: 'hook' } });
  t.same(none.body.error.details, { url: 'Required' });
  const made = await server.call('POST', `${configs}?type=notification-webhook`, {
    body: {
      name: 'hook',
      url: 'https://hooks.example/a',
      signing_secret: 'whsec_c2lnbmluZy1zZWNyZXQtMTIzNDU2Nzg=',
    },
  });
  t.equal(made.status, 201);
  t.notMatch(made.raw, /hooks\.example|whsec_/);
  const change = await server.call('PUT', `${configs}/notification-webhook/hook`, {
    body: { url: 'https://hooks.example/b' },
  });
  t.same(change.body.error.details, { url: 'Changing url needs signing_secret sent again' });
  t.notMatch(change.raw, /hooks\.example/, 'not even in the error');
});

t.test('URLs carrying credentials and other bad URLs are refused', async (t) => {
  for (const url of [
    'https://user:pw@erp.example/in',
    'https://erp.example/in?token=abc',
    'https://erp.example/in?api_key=abc',
    'https://erp.example/in?password=abc',
    'ftp://erp.example/in',
    'not a url',
  ]) {
    const r = await server.call('POST', `${configs}?type=http-poster`, { body: { name: 'bad-url', url } });
    t.equal(r.status, 400, url);
    t.ok(r.body.error.details.url, `refused on url: ${url}`);
    t.notMatch(JSON.stringify(r.body), /pw@|abc/, 'the value is not echoed');
  }
  const hook = await server.call('POST', `${configs}?type=notification-webhook`, {
    body: { name: 'bad-hook', url: 'https://hooks.example/x?secret=1' },
  });
  t.ok(hook.body.error.details.url);
});

t.test('file poller rules', async (t) => {
  const base = { base_directory: '/srv/in', processed_directory: '/srv/done', from: 'acme' };
  const post = (body: Record<string, unknown>) =>
    server.call('POST', `${configs}?type=file-poller`, { body: { name: 'poller', ...base, ...body } });
  t.same((await post({ processed_directory: '/srv/in/done' })).body.error.details, {
    processed_directory: 'Must not be base_directory or inside it',
  });
  t.same((await post({ base_directory: 'relative/in' })).body.error.details, {
    base_directory: 'Must be an absolute path',
  });
  t.same((await post({ from: 'nobody' })).body.error.details, {
    from: 'No organization or partner is named nobody',
  });
  const noFrom = await post({ from: undefined });
  t.same(noFrom.body.error.details, { from: 'Required when path_pattern has no {from}' });
  t.same((await post({ path_pattern: '{from}/{to}' })).body.error.details, {
    path_pattern: 'Must contain {filename}',
  });
  t.same((await post({ path_pattern: '{from}/../{filename}' })).body.error.details, {
    path_pattern: 'Must not contain empty, . or .. segments',
  });
  t.same((await post({ path_pattern: '{from}/{to}/{name}' })).body.error.details, {
    path_pattern: 'Unknown placeholder {name}; use {from}, {to}, {filename}',
  });
  t.same((await post({ polling_interval: 0 })).body.error.details, {
    polling_interval: 'Must be at least 1',
  });
  t.same((await post({ file_pattern: 'a/b' })).body.error.details, {
    file_pattern: 'Must match file names, without /',
  });
  t.same((await post({ colour: 'red' })).body.error.details, { colour: 'Unknown property' });

  const ok = await post({ polling_interval: 1 });
  t.equal(ok.status, 201);
  t.equal(ok.body.data.from, 'acme');
});

t.test('PUT: the path names the record; unknown records are 404; delete', async (t) => {
  await server.call('POST', `${configs}?type=file-writer`, { body: { name: 'w1', directory: '/srv/w1' } });
  const rename = await server.call('PUT', `${configs}/file-writer/w1`, { body: { name: 'w2' } });
  t.same(rename.body.error.details, { name: 'Names w2, but the path names w1' });
  const retype = await server.call('PUT', `${configs}/file-writer/w1`, { body: { type: 'http-poster' } });
  t.same(retype.body.error.details, { type: 'Names type http-poster, but the path names file-writer' });
  const bad = await server.call('PUT', `${configs}/file-writer/w1`, {
    body: { max_concurrent_deliveries: 101 },
  });
  t.same(bad.body.error.details, { max_concurrent_deliveries: 'Must be at most 100' });
  const good = await server.call('PUT', `${configs}/file-writer/w1`, {
    body: { max_concurrent_deliveries: 3, enabled: false },
  });
  t.match(good.body.data, { max_concurrent_deliveries: 3, enabled: false, directory: '/srv/w1' });
  const missing = await server.call('GET', `${configs}/file-writer/nope`);
  t.equal(missing.status, 404);
  t.equal(missing.body.error.message, 'Plugin configuration file-writer/nope not found');
  const wrongType = await server.call('GET', `${configs}/http-poster/w1`);
  t.equal(wrongType.status, 404, 'a name is found under its own type only');
  t.equal((await server.call('DELETE', `${configs}/file-writer/w1`)).status, 204);
  t.equal((await server.call('GET', `${configs}/file-writer/w1`)).status, 404);
});

t.test("the OpenAPI document has each type's configuration schema", async (t) => {
  const doc = server.built.openapi as {
    components: { schemas: Record<string, unknown> };
    paths: Record<string, unknown>;
  };
  for (const name of [
    'FilePollerConfig',
    'FileWriterConfigCreate',
    'HttpPosterConfig',
    'As2ReceiverConfig',
    'As2SenderConfig',
    'NotificationWebhookConfig',
  ]) {
    t.ok(doc.components.schemas[name], name);
  }
  t.ok(doc.paths['/plugins/configs/{type}/{name}']);
  const record = doc.components.schemas.HttpPosterConfig as { properties: Record<string, unknown> };
  t.notOk('http_basic_password' in record.properties, 'the record schema has no write-only property');
  const create = doc.components.schemas.HttpPosterConfigCreate as { properties: Record<string, unknown> };
  t.ok('http_basic_password' in create.properties, 'the create schema takes it');
});
