// Covers every record and instance form against its API route with the same submissions: an accepted body stores the same record through either path (a route with a blank name gets the default name), a refused one is refused with the same status and messages and stores nothing; the webhook form keeps its URL (entered, not shown) and "enabled" after a refusal; certificate lists are multi-selects; a save whose instance then fails to start says so.
import { createServer } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';
import { openUi, renderedForm, shownErrors } from './helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const ui = await openUi(server);
const dir = await tempDir(t);

const fixtures = makeFixtures(t);
const certificateIds: number[] = [];
for (const name of ['acme-one', 'acme-two']) {
  fixtures.selfSigned(name, `/CN=${name}/O=Acme`);
  const stored = await uploadCertificate(server, {
    certificate: fixtures.read(`${name}.crt`),
    private_key: fixtures.read(`${name}.key`),
    description: name,
  });
  if (stored.status !== 201) throw new Error(`certificate: ${stored.raw}`);
  certificateIds.push(stored.body.data.id as number);
}
const [one, two] = certificateIds as [number, number];
const acme = await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });
const globex = await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } });
const writer = await server.call('POST', '/api/v1/plugins/configs?type=file-writer', {
  body: { name: 'archive', directory: path.join(dir, 'archive'), enabled: false },
});
const source = await server.call('POST', '/api/v1/plugins/configs?type=file-poller', {
  body: {
    name: 'pickup-src',
    base_directory: path.join(dir, 'pickup'),
    processed_directory: path.join(dir, 'picked'),
    path_pattern: '{from}/{to}/{filename}',
    enabled: false,
  },
});
for (const a of [acme, globex, writer, source])
  if (a.status !== 201) throw new Error(`set-up failed: ${a.raw}`);
const acmeId = acme.body.data.id as number;
const globexId = globex.body.data.id as number;

/** A stored record without what differs between two creations of the same body. */
function comparable(record: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, created_at: _c, updated_at: _u, service: _s, last_used_at: _l, ...rest } = record;
  void [_id, _c, _u, _s, _l];
  return rest;
}

interface FormCase {
  /** What the form is. */
  form: string;
  ui: string;
  api: { method: 'POST' | 'PUT'; url: string };
  /** GET of the stored record, and DELETE to undo it, given the create answer. */
  record(made: Record<string, unknown>): string;
  accepted: { fields: Record<string, string | string[]>; json: Record<string, unknown> };
  refused: { fields: Record<string, string | string[]>; json: Record<string, unknown> };
  /** For a record with an id: its API address from where the form sent the browser. */
  fromLocation?(location: string): string;
}

/** `/ui/partners/7?saved=created` → `/api/v1/partners/7`. */
const byId = (location: string) => `/api/v1${location.replace(/^\/ui/, '').replace(/\?.*$/, '')}`;

const plugin = (type: string) => ({
  ui: `/ui/instances/new/${type}`,
  api: { method: 'POST' as const, url: `/api/v1/plugins/configs?type=${type}` },
  record: (made: Record<string, unknown>) => `/api/v1/plugins/configs/${type}/${String(made.name)}`,
});

const cases: FormCase[] = [
  {
    form: 'organization',
    ui: '/ui/organizations',
    api: { method: 'POST', url: '/api/v1/organizations' },
    record: (made) => `/api/v1/organizations/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: { name: 'initrode', display_name: 'Initrode' },
      json: { name: 'initrode', display_name: 'Initrode' },
    },
    refused: { fields: { name: 'Initrode' }, json: { name: 'Initrode' } },
  },
  {
    form: 'partner',
    ui: '/ui/partners',
    api: { method: 'POST', url: '/api/v1/partners' },
    record: (made) => `/api/v1/partners/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: { name: 'umbrella', display_name: '' },
      json: { name: 'umbrella', display_name: '' },
    },
    refused: { fields: { name: '', display_name: 'x' }, json: { name: '', display_name: 'x' } },
  },
  {
    form: 'partner with envelope settings',
    ui: '/ui/partners',
    api: { method: 'POST', url: '/api/v1/partners' },
    record: (made) => `/api/v1/partners/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: { name: 'wayne', edi_envelope: '{"x12_version": "00501", "test": true}' },
      json: { name: 'wayne', edi_envelope: { x12_version: '00501', test: true } },
    },
    refused: {
      fields: { name: 'wayne2', edi_envelope: '{"x12_element": "|", "x12_segment": "|"}' },
      json: { name: 'wayne2', edi_envelope: { x12_element: '|', x12_segment: '|' } },
    },
  },
  {
    form: 'route, name left blank (the API makes one)',
    ui: '/ui/routes',
    api: { method: 'POST', url: '/api/v1/routes' },
    record: (made) => `/api/v1/routes/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: { name: '', source_plugin: 'pickup-src', from: 'acme', to: 'globex', target_plugin: 'archive' },
      json: { source_plugin: 'pickup-src', from: 'acme', to: 'globex', target_plugin: 'archive' },
    },
    refused: {
      fields: { name: '', source_plugin: 'pickup-src', from: 'Acme', to: 'globex', target_plugin: '' },
      json: { source_plugin: 'pickup-src', from: 'Acme', to: 'globex', target_plugin: '' },
    },
  },
  {
    form: 'service account',
    ui: '/ui/service-accounts',
    api: { method: 'POST', url: '/api/v1/service-accounts' },
    record: (made) => `/api/v1/service-accounts/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: { name: 'erp', description: 'ERP', kind: 'local', enabled: ['false', 'true'] },
      json: { name: 'erp', description: 'ERP', kind: 'local', enabled: true },
    },
    refused: {
      fields: { name: 'erp', kind: 'federated', enabled: 'false', oidc_issuer: 'not a url' },
      json: { name: 'erp', kind: 'federated', enabled: false, oidc_issuer: 'not a url' },
    },
  },
  {
    form: 'identity provider',
    ui: '/ui/oidc-providers',
    api: { method: 'POST', url: '/api/v1/oidc-providers' },
    record: (made) => `/api/v1/oidc-providers/${String(made.id)}`,
    fromLocation: byId,
    accepted: {
      fields: {
        name: 'corp',
        issuer_url: 'https://idp.corp.example',
        client_id: 'pier',
        client_secret: 's3cret',
      },
      json: {
        name: 'corp',
        issuer_url: 'https://idp.corp.example',
        client_id: 'pier',
        client_secret: 's3cret',
      },
    },
    refused: {
      fields: { name: 'corp', issuer_url: 'http://idp.corp.example', client_id: 'pier' },
      json: { name: 'corp', issuer_url: 'http://idp.corp.example', client_id: 'pier' },
    },
  },
  {
    form: 'local AS2 profile, two decryption certificates picked',
    ui: `/ui/organizations/${acmeId}/profile`,
    api: { method: 'POST', url: '/api/v1/as2/local-profiles' },
    record: () => `/api/v1/as2/local-profiles/${acmeId}`,
    accepted: {
      fields: {
        as2id: 'ACME',
        signing_certificate_id: String(one),
        _list: 'decryption_certificate_ids',
        decryption_certificate_ids: [String(two), String(one)],
      },
      json: {
        local_organization_id: acmeId,
        as2id: 'ACME',
        signing_certificate_id: one,
        decryption_certificate_ids: [two, one],
      },
    },
    refused: {
      fields: { as2id: 'ACME', signing_certificate_id: String(one), _list: 'decryption_certificate_ids' },
      json: {
        local_organization_id: acmeId,
        as2id: 'ACME',
        signing_certificate_id: one,
        decryption_certificate_ids: [],
      },
    },
  },
  {
    form: 'remote AS2 profile, signature certificates picked',
    ui: `/ui/partners/${globexId}/profile`,
    api: { method: 'POST', url: '/api/v1/as2/remote-profiles' },
    record: () => `/api/v1/as2/remote-profiles/${globexId}`,
    accepted: {
      fields: {
        as2id: 'GLOBEX',
        endpoint: 'https://globex.example/as2',
        partner_certificate_id: String(one),
        _list: 'signature_certificate_ids',
        signature_certificate_ids: [String(one), String(two)],
        mdn_mode: 'async',
        compression: 'false',
      },
      json: {
        business_partner_id: globexId,
        as2id: 'GLOBEX',
        endpoint: 'https://globex.example/as2',
        partner_certificate_id: one,
        signature_certificate_ids: [one, two],
        mdn_mode: 'async',
        compression: false,
      },
    },
    refused: {
      fields: { as2id: 'GLOBEX', endpoint: 'https://globex.example/as2', partner_certificate_id: '' },
      json: {
        business_partner_id: globexId,
        as2id: 'GLOBEX',
        endpoint: 'https://globex.example/as2',
        partner_certificate_id: null,
      },
    },
  },
  {
    ...plugin('file-writer'),
    form: 'file writer',
    accepted: {
      fields: {
        name: 'out',
        enabled: 'false',
        directory: path.join(dir, 'out'),
        max_concurrent_deliveries: '3',
      },
      json: { name: 'out', enabled: false, directory: path.join(dir, 'out'), max_concurrent_deliveries: 3 },
    },
    refused: {
      fields: { name: 'out', enabled: 'false', directory: 'relative/dir', max_concurrent_deliveries: '0' },
      json: { name: 'out', enabled: false, directory: 'relative/dir', max_concurrent_deliveries: 0 },
    },
  },
  {
    ...plugin('file-poller'),
    form: 'file poller, parties picked',
    accepted: {
      fields: {
        name: 'pickup',
        enabled: 'false',
        base_directory: path.join(dir, 'in'),
        processed_directory: path.join(dir, 'done'),
        path_pattern: '{filename}',
        from: 'acme',
        to: 'globex',
      },
      json: {
        name: 'pickup',
        enabled: false,
        base_directory: path.join(dir, 'in'),
        processed_directory: path.join(dir, 'done'),
        path_pattern: '{filename}',
        from: 'acme',
        to: 'globex',
      },
    },
    refused: {
      fields: {
        name: 'pickup',
        enabled: 'false',
        base_directory: path.join(dir, 'in'),
        polling_interval: 'often',
      },
      json: {
        name: 'pickup',
        enabled: false,
        base_directory: path.join(dir, 'in'),
        polling_interval: 'often',
      },
    },
  },
  {
    ...plugin('http-poster'),
    form: 'HTTP poster',
    accepted: {
      fields: {
        name: 'erp-post',
        enabled: 'false',
        url: 'https://erp.example/in',
        http_basic_password: 'pw',
      },
      json: { name: 'erp-post', enabled: false, url: 'https://erp.example/in', http_basic_password: 'pw' },
    },
    refused: {
      fields: { name: 'erp-post', enabled: 'false', url: 'https://erp.example/in?token=abc' },
      json: { name: 'erp-post', enabled: false, url: 'https://erp.example/in?token=abc' },
    },
  },
  {
    ...plugin('as2-receiver'),
    form: 'AS2 receiver, HTTPS certificate picked',
    accepted: {
      fields: {
        name: 'as2-in',
        enabled: 'false',
        host: '127.0.0.1',
        port: '18080',
        tls_certificate_id: String(one),
      },
      json: { name: 'as2-in', enabled: false, host: '127.0.0.1', port: 18080, tls_certificate_id: one },
    },
    refused: {
      fields: { name: 'as2-in', enabled: 'false', port: '70000', path: 'as2' },
      json: { name: 'as2-in', enabled: false, port: 70000, path: 'as2' },
    },
  },
  {
    ...plugin('as2-sender'),
    form: 'AS2 sender',
    accepted: {
      fields: { name: 'as2-out', enabled: 'false', compression_order: 'after-sign' },
      json: { name: 'as2-out', enabled: false, compression_order: 'after-sign' },
    },
    refused: {
      fields: { name: 'as2-out', enabled: 'false', retry_interval: '600', retry_max_interval: '60' },
      json: { name: 'as2-out', enabled: false, retry_interval: 600, retry_max_interval: 60 },
    },
  },
  {
    ...plugin('notification-webhook'),
    form: 'webhook notifier',
    accepted: {
      fields: { name: 'ops-hook', enabled: 'false', url: 'https://hooks.example/pier', format: 'slack' },
      json: { name: 'ops-hook', enabled: false, url: 'https://hooks.example/pier', format: 'slack' },
    },
    refused: {
      fields: { name: 'ops-hook', enabled: 'false', url: 'https://hooks.example/pier', timeout_seconds: '0' },
      json: { name: 'ops-hook', enabled: false, url: 'https://hooks.example/pier', timeout_seconds: 0 },
    },
  },
  {
    ...plugin('notification-email'),
    form: 'e-mail notifier',
    accepted: {
      fields: {
        name: 'ops-mail',
        enabled: 'false',
        smtp_host: 'mail.example',
        from: 'pier@example.com',
        // A list of texts is typed one per line (JSON is taken too).
        to: 'ops@example.com\r\n  night-shift@example.com\r\n\r\n',
      },
      json: {
        name: 'ops-mail',
        enabled: false,
        smtp_host: 'mail.example',
        from: 'pier@example.com',
        to: ['ops@example.com', 'night-shift@example.com'],
      },
    },
    refused: {
      fields: { name: 'ops-mail', enabled: 'false', smtp_host: 'mail.example', from: 'pier', to: '[]' },
      json: { name: 'ops-mail', enabled: false, smtp_host: 'mail.example', from: 'pier', to: [] },
    },
  },
];

function detailsText(details: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(details ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

for (const c of cases) {
  t.test(`${c.form}: the form and the API accept and refuse the same bodies`, async (t) => {
    // Refused: same status, same messages beside the same fields, nothing stored.
    const refusedApi = await server.call(c.api.method, c.api.url, { body: c.refused.json });
    t.equal(refusedApi.status, 400, `the API refuses: ${refusedApi.raw}`);
    const refusedPage = await ui.post(c.ui, c.refused.fields);
    t.equal(refusedPage.status, refusedApi.status, 'the form is refused with the same status');
    t.same(
      shownErrors(refusedPage.body),
      detailsText(refusedApi.body.error.details),
      'with the same messages',
    );

    // Accepted through the API, undone, then accepted through the form: the same record.
    const madeApi = await server.call(c.api.method, c.api.url, { body: c.accepted.json });
    t.equal(madeApi.status, 201, `the API accepts: ${madeApi.raw}`);
    const url = c.record(madeApi.body.data);
    const storedApi = (await server.call('GET', url)).body.data;
    t.equal((await server.call('DELETE', url)).status, 204);
    const madePage = await ui.post(c.ui, c.accepted.fields);
    t.equal(madePage.status, 303, `the form accepts: ${madePage.body.slice(0, 400)}`);
    const storedPage = await server.call(
      'GET',
      c.fromLocation ? c.fromLocation(String(madePage.headers.location)) : url,
    );
    t.equal(storedPage.status, 200, 'the form stored the record the API stored');
    t.same(comparable(storedPage.body.data), comparable(storedApi), 'the same record, field by field');
  });
}

t.test('settings: the form saves what PUT /settings saves, and refuses alike', async (t) => {
  const refusedApi = await server.call('PUT', '/api/v1/settings', { body: { delivery_max_dispatches: 21 } });
  const refusedPage = await ui.post('/ui/settings', { delivery_max_dispatches: '21' });
  t.equal(refusedApi.status, 400);
  t.equal(refusedPage.status, 400);
  t.same(shownErrors(refusedPage.body), detailsText(refusedApi.body.error.details));
  const api = await server.call('PUT', '/api/v1/settings', { body: { delivery_max_dispatches: 7 } });
  t.equal(api.status, 200);
  t.equal(
    (await server.call('PUT', '/api/v1/settings', { body: { delivery_max_dispatches: 5 } })).status,
    200,
  );
  const page = await ui.post('/ui/settings', { delivery_max_dispatches: '7' });
  t.equal(page.status, 303);
  t.equal((await server.call('GET', '/api/v1/settings')).body.data.delivery_max_dispatches, 7);
  const shown = await ui.get('/ui/settings');
  t.notMatch(shown.body, '{&quot;storage_backend', 'the storage in use is not JSON');
  t.match(shown.body, /Storage in use<\/dt>\s*<dd>\s*local directory /, 'but words');
  t.match(shown.body, /<legend>Payload storage<\/legend>/, 'the storage fields are one section');
});

t.test('the webhook form after a refusal keeps the URL (entered, not shown) and "enabled"', async (t) => {
  const url = 'https://hooks.example/kept-for-the-operator';
  const refused = await ui.post('/ui/instances/new/notification-webhook', {
    name: 'alerts-hook',
    enabled: ['false', 'true'],
    url,
    timeout_seconds: '0',
  });
  t.equal(refused.status, 400);
  t.notMatch(refused.body, url, 'the URL is never written into the page');
  t.match(refused.body, 'entered, not shown', 'the page says the URL was kept');
  const again = renderedForm(refused.body, '/ui/instances/new/notification-webhook');
  t.equal(again.enabled, 'true', '"enabled" is still checked');
  t.equal(again.url, '', 'the URL field itself is blank');
  t.ok(again._kept, 'a ticket stands in for the URL');
  const saved = await ui.post('/ui/instances/new/notification-webhook', { ...again, timeout_seconds: '10' });
  t.equal(saved.status, 303, saved.body.slice(0, 300));
  const record = await server.call('GET', '/api/v1/plugins/configs/notification-webhook/alerts-hook');
  t.equal(record.body.data.enabled, true, 'the notifier is enabled as the form said');
  t.same(record.body.data.secrets_set, ['url'], 'and has the URL typed before the refusal');
  t.equal(
    (await server.call('DELETE', '/api/v1/plugins/configs/notification-webhook/alerts-hook')).status,
    204,
  );

  const reused = await ui.post('/ui/instances/new/notification-webhook', {
    name: 'alerts-hook',
    timeout_seconds: '10',
    _kept: again._kept!,
  });
  t.equal(reused.status, 400, 'a ticket works once');
  t.match(shownErrors(reused.body).url ?? '', /Required|required/);
});

t.test('reference fields are pickers; certificate lists are multi-selects', async (t) => {
  const routes = await ui.get('/ui/routes');
  t.match(routes.body, /<select[^>]*name="target_plugin"[\s\S]*?<option value="archive"/, 'targets to pick');
  t.match(routes.body, /<select[^>]*name="from"[\s\S]*?<option value="acme"/, 'parties to pick');
  const profile = await ui.get(`/ui/organizations/${acmeId}/profile`);
  t.match(profile.body, /<select\s+multiple[^>]*name="decryption_certificate_ids"/, 'a multi-select');
  t.notMatch(profile.body, /<textarea[^>]*name="decryption_certificate_ids"/, 'no JSON list');
  t.match(profile.body, /<label for="f-as2id">AS2 id/, 'a label for people');
  const partner = await ui.get(`/ui/partners/${globexId}/profile`);
  t.match(partner.body, /<details class="form-section" data-section="interop"/, 'interop settings folded');
  const receiver = await ui.get('/ui/instances/new/as2-receiver');
  t.match(receiver.body, /<label for="f-max_in_flight_mib_per_partner">MiB in progress per partner/);
  t.match(receiver.body, /<select[^>]*name="tls_certificate_id"[\s\S]*?acme-one/, 'certificate to pick');
});

t.test('a save whose instance then fails to start says so instead of "Saved."', async (t) => {
  const taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  t.teardown(() => new Promise<void>((done) => taken.close(() => done())));
  const port = (taken.address() as { port: number }).port;
  const made = await ui.post('/ui/instances/new/as2-receiver', {
    name: 'busy-port',
    enabled: ['false', 'true'],
    host: '127.0.0.1',
    port: String(port),
  });
  t.equal(made.status, 303);
  const page = await ui.get(made.headers.location as string);
  t.match(page.body, 'Saved, but the instance failed to start', 'a warning, not "Saved."');
  t.notMatch(page.body, />\s*Saved\.\s*</);
});
