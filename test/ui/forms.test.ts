// Covers the web UI's one validation path: every form, given a table of bad inputs, is refused exactly as the API refuses the same submission (status, per-field messages), and stores nothing; plus CSRF, CSP and the token shown once.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { openUi, shownErrors } from './helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const ui = await openUi(server);

const org = await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });
const partner = await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } });
// Every set-up call is awaited before the first assertion: tap ends a root test that asserted and then went quiet.
const provider = await server.call('POST', '/api/v1/oidc-providers', {
  body: {
    name: 'corp-sso',
    issuer_url: 'https://idp.corp.example',
    client_id: 'pier',
    client_secret: 'first-secret',
  },
});
t.equal(org.status, 201);
t.equal(partner.status, 201);
t.equal(provider.status, 201);
const partnerId = partner.body.data.id as number;
const providerId = provider.body.data.id as number;

interface Case {
  name: string;
  /** The form as a browser submits it. */
  form: Record<string, string>;
  /** The same submission as an API client sends it. */
  json: Record<string, unknown>;
}

interface FormTable {
  ui: string;
  api: { method: string; url: string };
  /** A list whose total must not change (nothing half-written). */
  count?: string;
  cases: Case[];
}

const long = 'x'.repeat(65);
const tables: FormTable[] = [
  {
    ui: '/ui/organizations',
    api: { method: 'POST', url: '/api/v1/organizations' },
    count: '/api/v1/organizations',
    cases: [
      {
        name: 'upper case name',
        form: { name: 'Not OK', display_name: '' },
        json: { name: 'Not OK', display_name: '' },
      },
      { name: 'empty name', form: { name: '', display_name: 'A' }, json: { name: '', display_name: 'A' } },
      { name: 'name too long', form: { name: long }, json: { name: long } },
      {
        name: 'control character',
        form: { name: 'ok', display_name: 'a\u0007b' },
        json: { name: 'ok', display_name: 'a\u0007b' },
      },
      { name: 'duplicate', form: { name: 'acme' }, json: { name: 'acme' } },
    ],
  },
  {
    ui: '/ui/partners',
    api: { method: 'POST', url: '/api/v1/partners' },
    count: '/api/v1/partners',
    cases: [
      { name: 'spaces in name', form: { name: 'a b' }, json: { name: 'a b' } },
      { name: 'duplicate', form: { name: 'globex' }, json: { name: 'globex' } },
    ],
  },
  {
    ui: `/ui/partners/${partnerId}`,
    api: { method: 'PUT', url: `/api/v1/partners/${partnerId}` },
    cases: [{ name: 'rename to a bad name', form: { name: 'Bad!' }, json: { name: 'Bad!' } }],
  },
  {
    ui: '/ui/routes',
    api: { method: 'POST', url: '/api/v1/routes' },
    count: '/api/v1/routes',
    cases: [
      {
        name: 'bad party',
        form: { source_plugin: 'in', from: 'A', to: '*', target_plugin: 'out' },
        json: { source_plugin: 'in', from: 'A', to: '*', target_plugin: 'out' },
      },
      {
        name: 'unknown instances',
        form: { source_plugin: 'nope', from: '*', to: '*', target_plugin: 'none' },
        json: { source_plugin: 'nope', from: '*', to: '*', target_plugin: 'none' },
      },
    ],
  },
  {
    ui: '/ui/service-accounts',
    api: { method: 'POST', url: '/api/v1/service-accounts' },
    count: '/api/v1/service-accounts',
    cases: [
      {
        name: 'bad name and kind',
        form: { name: 'A B', kind: 'other', enabled: 'true' },
        json: { name: 'A B', kind: 'other', enabled: true },
      },
      {
        name: 'federated without identity',
        form: { name: 'fed', kind: 'federated', oidc_issuer: 'ftp://x', oidc_subject: '' },
        json: { name: 'fed', kind: 'federated', oidc_issuer: 'ftp://x', oidc_subject: '' },
      },
    ],
  },
  {
    ui: '/ui/api-tokens',
    api: { method: 'POST', url: '/api/v1/api-tokens' },
    count: '/api/v1/api-tokens',
    cases: [
      {
        name: 'unknown account, empty label',
        form: { service_account: 'nobody', label: '' },
        json: { service_account: 'nobody', label: '' },
      },
      {
        name: 'expiry out of range',
        form: { service_account: 'tester', label: 'x', expires_in_days: '400' },
        json: { service_account: 'tester', label: 'x', expires_in_days: 400 },
      },
      {
        name: 'expiry not a number',
        form: { service_account: 'tester', label: 'x', expires_in_days: 'soon' },
        json: { service_account: 'tester', label: 'x', expires_in_days: 'soon' },
      },
    ],
  },
  {
    ui: '/ui/settings',
    api: { method: 'PUT', url: '/api/v1/settings' },
    cases: [
      {
        name: 'dispatches out of range',
        form: { delivery_max_dispatches: '0' },
        json: { delivery_max_dispatches: 0 },
      },
      { name: 'unknown backend', form: { storage_backend: 's4' }, json: { storage_backend: 's4' } },
      {
        name: 's3 without bucket',
        form: { storage_backend: 's3', storage_s3_bucket: '', storage_s3_region: '' },
        json: { storage_backend: 's3', storage_s3_bucket: '', storage_s3_region: '' },
      },
    ],
  },
  {
    ui: '/ui/instances/new/file-writer',
    api: { method: 'POST', url: '/api/v1/plugins/configs?type=file-writer' },
    cases: [
      {
        name: 'bad name, relative directory',
        form: { name: 'Bad', directory: 'out', enabled: 'true' },
        json: { name: 'Bad', directory: 'out', enabled: true },
      },
      {
        name: 'concurrency out of range',
        form: { name: 'w', directory: '/tmp/w', max_concurrent_deliveries: '0' },
        json: { name: 'w', directory: '/tmp/w', max_concurrent_deliveries: 0 },
      },
      {
        name: 'unknown if_exists',
        form: { name: 'w', directory: '/tmp/w', if_exists: 'overwrite' },
        json: { name: 'w', directory: '/tmp/w', if_exists: 'overwrite' },
      },
    ],
  },
  {
    ui: '/ui/oidc-providers',
    api: { method: 'POST', url: '/api/v1/oidc-providers' },
    count: '/api/v1/oidc-providers',
    cases: [
      {
        name: 'bad name, plain http issuer',
        form: { name: 'Corp SSO', issuer_url: 'http://idp.example', client_id: 'pier', client_secret: 's' },
        json: { name: 'Corp SSO', issuer_url: 'http://idp.example', client_id: 'pier', client_secret: 's' },
      },
      {
        name: 'sign-in without secret or openid (a blank secret is left out)',
        form: {
          name: 'other',
          issuer_url: 'https://idp.other.example',
          client_id: 'pier',
          client_secret: '',
          scopes: 'profile',
          sign_in: 'true',
        },
        json: {
          name: 'other',
          issuer_url: 'https://idp.other.example',
          client_id: 'pier',
          scopes: 'profile',
          sign_in: true,
        },
      },
      {
        name: 'unknown role, issuer with credentials',
        form: {
          name: 'third',
          issuer_url: 'https://u:p@idp.example',
          sign_in: 'false',
          auto_provision_role: 'admin',
        },
        json: {
          name: 'third',
          issuer_url: 'https://u:p@idp.example',
          sign_in: false,
          auto_provision_role: 'admin',
        },
      },
      {
        name: 'duplicate name',
        form: { name: 'corp-sso', issuer_url: 'https://idp.new.example', sign_in: 'false' },
        json: { name: 'corp-sso', issuer_url: 'https://idp.new.example', sign_in: false },
      },
    ],
  },
  {
    ui: `/ui/oidc-providers/${providerId}`,
    api: { method: 'PUT', url: `/api/v1/oidc-providers/${providerId}` },
    cases: [
      {
        name: 'new issuer without the secret again',
        form: { issuer_url: 'https://idp.moved.example', client_secret: '' },
        json: { issuer_url: 'https://idp.moved.example' },
      },
      { name: 'bad scopes', form: { scopes: 'email' }, json: { scopes: 'email' } },
    ],
  },
  {
    ui: `/ui/partners/${partnerId}/profile`,
    api: { method: 'POST', url: '/api/v1/as2/remote-profiles' },
    count: '/api/v1/as2/remote-profiles',
    cases: [
      {
        name: 'encryption without certificate, bad timeout',
        form: { as2id: 'GLOBEX', endpoint: 'https://globex.example/as2', receipt_timeout_hours: '0' },
        json: {
          business_partner_id: partnerId,
          as2id: 'GLOBEX',
          endpoint: 'https://globex.example/as2',
          receipt_timeout_hours: 0,
        },
      },
      {
        name: 'credential in the URL',
        form: {
          as2id: 'GLOBEX',
          endpoint: 'https://user:pw@globex.example/as2',
          encryption_algorithm: 'none',
        },
        json: {
          business_partner_id: partnerId,
          as2id: 'GLOBEX',
          endpoint: 'https://user:pw@globex.example/as2',
          encryption_algorithm: 'none',
        },
      },
    ],
  },
];

for (const table of tables) {
  t.test(`${table.ui} refuses as ${table.api.method} ${table.api.url}`, async (t) => {
    const before = table.count ? (await server.call('GET', table.count)).body.data.total : undefined;
    for (const c of table.cases) {
      const api = await server.call(table.api.method, table.api.url, { body: c.json });
      const page = await ui.post(table.ui, c.form);
      t.not(api.status, 201, `${c.name}: the API refuses`);
      t.ok(api.status >= 400, `${c.name}: the API answers ${api.status}`);
      t.equal(page.status, api.status, `${c.name}: same status`);
      const details = Object.fromEntries(
        Object.entries((api.body.error.details ?? {}) as Record<string, unknown>).map(([k, v]) => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]),
      );
      if (api.body.error.code === 'INVALID_INPUT') {
        t.ok(Object.keys(details).length > 0, `${c.name}: the API names fields`);
        t.same(
          shownErrors(page.body),
          details,
          `${c.name}: the page shows the API's details beside their fields`,
        );
      } else {
        t.match(
          page.body,
          api.body.error.message.replace(/&/g, '&amp;'),
          `${c.name}: the page shows the API's message`,
        );
      }
    }
    if (table.count)
      t.equal((await server.call('GET', table.count)).body.data.total, before, 'nothing stored');
  });
}

t.test('a valid form is accepted as the API accepts it', async (t) => {
  const made = await ui.post('/ui/partners', { name: 'initech', display_name: 'Initech' });
  t.equal(made.status, 303);
  t.match(made.headers.location, /^\/ui\/partners\/\d+\?saved=created$/);
  const list = await server.call('GET', '/api/v1/partners?q=initech');
  t.equal(list.body.data.partners[0].display_name, 'Initech');
  const audit = await server.call('GET', '/api/v1/audit?kind=partner&record_name=initech');
  t.equal(audit.body.data.events[0].actor, 'developer', 'recorded as the UI user');
});

t.test('forms need the CSRF token of the cookie and the same origin', async (t) => {
  const missing = await ui.post('/ui/organizations', { name: 'nocsrf' }, false);
  t.equal(missing.status, 403);
  t.match(missing.body, 'The form has expired or came from another site');
  const wrong = await ui.post('/ui/organizations', { name: 'nocsrf', _csrf: 'A'.repeat(43) }, false);
  t.equal(wrong.status, 403);
  const foreign = await server.app.inject({
    method: 'POST',
    url: '/ui/organizations',
    headers: {
      cookie: ui.cookie,
      origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: `_csrf=${ui.csrf}&name=nocsrf`,
  });
  t.equal(foreign.statusCode, 403);
  const list = await server.call('GET', '/api/v1/organizations?q=nocsrf');
  t.equal(list.body.data.total, 0, 'nothing was created');
  const api = await server.call('POST', '/api/v1/organizations', {
    payload: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(api.status, 415, 'the API still takes JSON only');
});

t.test('every page carries a strict CSP and no inline script', async (t) => {
  const pages = [
    '/ui',
    '/ui/messages',
    '/ui/partners',
    '/ui/organizations',
    '/ui/certificates',
    '/ui/routes',
    '/ui/instances',
    '/ui/audit',
    '/ui/settings',
    '/ui/service-accounts',
    '/ui/api-tokens',
    '/ui/users',
    '/ui/oidc-providers',
    `/ui/oidc-providers/${providerId}`,
    '/ui/notifications',
    '/ui/wizard',
    `/ui/partners/${partnerId}/profile`,
  ];
  for (const url of pages) {
    const page = await ui.get(url);
    t.equal(page.status, 200, `${url} answers`);
    const csp = String(page.headers['content-security-policy']);
    t.match(csp, "script-src 'self'", url);
    t.notMatch(csp, 'unsafe-inline', url);
    t.notMatch(page.body, /<script(?![^>]*\bsrc=)/, `${url} has no inline script`);
    t.notMatch(page.body, / style="/, `${url} has no inline style`);
    // Addresses shown as text (an identity provider's issuer) are fine; nothing is loaded or linked from elsewhere.
    t.notMatch(
      page.body,
      /\b(?:src|href|action|srcset)="https?:\/\/(?!127\.0\.0\.1)/i,
      `${url} loads nothing from elsewhere`,
    );
    t.notMatch(page.body, /url\(\s*['"]?https?:/i, `${url} has no remote style resource`);
  }
});

t.test('a new API token is shown once; secrets are shown as set or not set', async (t) => {
  const made = await ui.post('/ui/api-tokens', { service_account: 'tester', label: 'from the UI' });
  t.equal(made.status, 201);
  const token = /<p id="new-token" class="token-once">([^<]+)<\/p>/.exec(made.body)?.[1];
  t.match(token, /^pier_/);
  t.match(made.body, 'data-copy="new-token"');
  const works = await server.call('GET', '/api/v1/organizations', { token: token! });
  t.equal(works.status, 200, 'the token shown works on the API');
  const list = await ui.get('/ui/api-tokens');
  t.notMatch(list.body, token!, 'the list never shows it again');

  const poster = await server.call('POST', '/api/v1/plugins/configs?type=http-poster', {
    body: { name: 'poster', url: 'https://example.test/in', http_basic_password: 'hunter2-secret' },
  });
  t.equal(poster.status, 201);
  const page = await ui.get('/ui/instances/http-poster/poster');
  t.equal(page.status, 200);
  t.notMatch(page.body, 'hunter2-secret');
  t.match(page.body, /<label for="f-http_basic_password">[\s\S]*?<span class="secret-state">set<\/span>/);
  t.match(page.body, /<label for="f-http_headers">[\s\S]*?<span class="secret-state">not set<\/span>/);
  const kept = await ui.post('/ui/instances/http-poster/poster', {
    content_type: 'text/plain',
    http_basic_password: '',
  });
  t.equal(kept.status, 303, 'a blank write-only field keeps the stored value');
});

t.test('a release build serves no page without a session: it sends the browser to sign in', async (t) => {
  const release = await startTestServer(t, { developerBuild: false });
  const page = await release.app.inject({ method: 'GET', url: '/ui/partners' });
  t.equal(page.statusCode, 302);
  t.equal(page.headers.location, '/ui/auth/');
  const forged = await release.app.inject({
    method: 'GET',
    url: '/ui/partners',
    headers: { cookie: 'pier_session=not-a-session' },
  });
  t.equal(forged.headers.location, '/ui/auth/', 'an unknown session cookie is no session');
  const post = await release.app.inject({
    method: 'POST',
    url: '/ui/partners',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'name=x',
  });
  t.equal(post.statusCode, 403, 'a form without a CSRF token is refused before anything else');
});

t.test('the upload forms (file by hand, certificate) refuse as the API does', async (t) => {
  const { multipart } = await import('../helpers/upload.js');
  const cases: {
    name: string;
    ui: string;
    api: string;
    parts: Record<string, string | { file: Buffer; name: string }>;
  }[] = [
    {
      name: 'file by hand without parties',
      ui: '/ui/messages/send',
      api: '/api/v1/messages',
      parts: { file: { file: Buffer.from('x'), name: 'a.txt' } },
    },
    {
      name: 'file by hand between two partners',
      ui: '/ui/messages/send',
      api: '/api/v1/messages',
      parts: { from: 'globex', to: 'initech', file: { file: Buffer.from('x'), name: 'a.txt' } },
    },
    {
      name: 'certificate that is no certificate',
      ui: '/ui/certificates/upload',
      api: '/api/v1/certificates',
      parts: { certificate: { file: Buffer.from('not a certificate'), name: 'c.pem' } },
    },
    {
      name: 'certificate missing',
      ui: '/ui/certificates/upload',
      api: '/api/v1/certificates',
      parts: { description: 'nothing' },
    },
  ];
  for (const c of cases) {
    const body = await multipart(c.parts);
    const api = await server.call('POST', c.api, {
      payload: body.payload,
      headers: { 'content-type': body.contentType, 'x-requested-with': 'test' },
    });
    const again = await multipart(c.parts);
    const page = await server.app.inject({
      method: 'POST',
      url: `${c.ui}?_csrf=${ui.csrf}`,
      headers: { cookie: ui.cookie, 'content-type': again.contentType },
      payload: again.payload,
    });
    t.ok(api.status >= 400, `${c.name}: the API refuses (${api.status})`);
    t.equal(page.statusCode, api.status, `${c.name}: same status`);
    if (api.body.error.code === 'INVALID_INPUT') {
      t.same(shownErrors(page.body), api.body.error.details, `${c.name}: same messages`);
    } else {
      t.match(page.body, api.body.error.message, `${c.name}: the API's message`);
    }
  }
  const messages = await server.call('GET', '/api/v1/messages');
  t.equal(messages.body.data.total, 0, 'no message was made');
});

t.test('a create form left at its defaults stores what the API stores for a body without them', async (t) => {
  const { renderedForm } = await import('./helpers.js');
  const writerPage = await ui.get('/ui/instances/new/file-writer');
  const writerFields = {
    ...renderedForm(writerPage.body, '/ui/instances/new/file-writer'),
    name: 'w-ui',
    directory: '/tmp/w-ui',
  };
  const made = await ui.post('/ui/instances/new/file-writer', writerFields);
  t.equal(made.status, 303);
  const api = await server.call('POST', '/api/v1/plugins/configs?type=file-writer', {
    body: { name: 'w-api', directory: '/tmp/w-api' },
  });
  const fromUi = (await server.call('GET', '/api/v1/plugins/configs/file-writer/w-ui')).body.data;
  const strip = ({
    name: _n,
    directory: _d,
    created_at: _c,
    updated_at: _u,
    // The create answer also shows the instance it started (docs/decisions/plugin-instances-follow-their-configuration.md); GET shows the configuration.
    service: _s,
    ...rest
  }: Record<string, unknown>) => rest;
  t.same(strip(fromUi), strip(api.body.data), 'the same defaults');

  const other = await server.call('POST', '/api/v1/partners', { body: { name: 'hooli' } });
  const profileUrl = `/ui/partners/${partnerId}/profile`;
  const page = await ui.get(profileUrl);
  const fields = {
    ...renderedForm(page.body, profileUrl),
    as2id: 'GLOBEX',
    endpoint: 'https://globex.example/as2',
    encryption_algorithm: 'none',
    mdn_signed: 'false',
  };
  const saved = await ui.post(profileUrl, fields);
  t.equal(saved.status, 303, saved.status === 303 ? 'created' : JSON.stringify(shownErrors(saved.body)));
  const viaApi = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: other.body.data.id,
      as2id: 'HOOLI',
      endpoint: 'https://globex.example/as2',
      encryption_algorithm: 'none',
      mdn_signed: false,
    },
  });
  t.equal(viaApi.status, 201);
  const uiProfile = (await server.call('GET', `/api/v1/as2/remote-profiles/${partnerId}`)).body.data;
  const pick = ({
    business_partner_id: _b,
    as2id: _a,
    created_at: _c,
    updated_at: _u,
    ...rest
  }: Record<string, unknown>) => rest;
  t.same(
    pick(uiProfile),
    pick(viaApi.body.data),
    'the secure defaults of a new profile, as the API makes them',
  );
  t.match(uiProfile, { signing_algorithm: 'sha256', compression: true, mdn_mode: 'sync' });
});

t.test('an identity provider’s client secret is typed, kept and never rendered', async (t) => {
  const made = await ui.post('/ui/oidc-providers', {
    name: 'partner-idp',
    display_name: 'Partner IdP',
    issuer_url: 'https://idp.partner.example',
    client_id: 'pier-ui',
    client_secret: 'never-shown-secret-1',
    scopes: 'openid profile email',
    sign_in: 'true',
    enabled: 'true',
  });
  t.equal(made.status, 303, made.status === 303 ? 'created' : JSON.stringify(shownErrors(made.body)));
  const location = String(made.headers.location);
  t.match(location, /^\/ui\/oidc-providers\/\d+\?saved=created$/);
  const id = /\/(\d+)\?/.exec(location)![1]!;
  const detail = await ui.get(`/ui/oidc-providers/${id}`);
  t.equal(detail.status, 200);
  t.notMatch(detail.body, 'never-shown-secret-1', 'the secret is not in the page');
  t.match(
    detail.body,
    /<label for="f-client_secret">[\s\S]*?type="password"[\s\S]*?<span class="secret-state">set<\/span>/,
  );
  t.match(
    detail.body,
    /<input type="password" autocomplete="new-password" id="f-client_secret"[^>]*value=""/,
  );
  t.match(
    detail.body,
    `<code id="redirect-uri">${server.ctx.options.publicUrl}/ui/auth/partner-idp/callback</code>`,
  );
  const list = await ui.get('/ui/oidc-providers');
  t.match(list.body, 'https://idp.partner.example');
  t.notMatch(list.body, 'never-shown-secret-1');

  const sealed = async () =>
    (
      await server.ctx.orm.em
        .fork()
        .getConnection()
        .execute<{ client_secret_sealed: string }[]>(
          'select client_secret_sealed from oidc_provider where id = ?',
          [Number(id)],
        )
    )[0]!.client_secret_sealed;
  const before = await sealed();
  const kept = await ui.post(`/ui/oidc-providers/${id}`, { display_name: 'Partner SSO', client_secret: '' });
  t.equal(kept.status, 303, 'a blank secret field saves');
  t.equal(await sealed(), before, 'and keeps the stored secret');
  const api = await server.call('GET', `/api/v1/oidc-providers/${id}`);
  t.equal(api.body.data.display_name, 'Partner SSO');
  t.notOk('client_secret' in api.body.data);
  const replaced = await ui.post(`/ui/oidc-providers/${id}`, { client_secret: 'replacement-secret-2' });
  t.equal(replaced.status, 303);
  t.not(await sealed(), before, 'a typed secret replaces it');
  const audit = await server.call('GET', `/api/v1/audit?kind=oidc-provider&record_id=${id}`);
  const text = JSON.stringify(audit.body.data.events);
  t.notMatch(text, /never-shown-secret-1|replacement-secret-2/, 'the audit log has no secret');
  t.match(text, '"secret":true');

  const removed = await ui.post(`/ui/oidc-providers/${id}/delete`, {});
  t.equal(removed.status, 303);
  t.equal((await server.call('GET', `/api/v1/oidc-providers/${id}`)).status, 404);
});

t.test(
  'the notification log: filters as the API reads them, test notifications shown on request',
  async (t) => {
    const { startReceiver } = await import('../helpers/webhook-receiver.js');
    const receiver = await startReceiver(t);
    const hook = await server.call('POST', '/api/v1/plugins/configs?type=notification-webhook', {
      body: { name: 'ops-hook', url: receiver.url, enabled: false },
    });
    t.equal(hook.status, 201, JSON.stringify(hook.body));
    const sent = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/ops-hook/test');
    t.equal(sent.status, 200);
    t.equal(sent.body.data.outcome, 'delivered');

    const plain = await ui.get('/ui/notifications');
    t.equal(plain.status, 200);
    t.match(plain.body, 'No notifications match.', 'a test notification is left out by default');
    const shown = await ui.get('/ui/notifications?include_tests=true&instance=ops-hook');
    t.equal(shown.status, 200);
    t.match(shown.body, sent.body.data.summary.replace(/&/g, '&amp;'));
    t.match(shown.body, /<span class="badge badge-delivered">delivered<\/span>/);
    t.match(shown.body, /<option value="true"\s+selected\s*>show<\/option>/, 'the filter keeps its choice');
    const none = await ui.get('/ui/notifications?include_tests=true&outcome=failed');
    t.match(none.body, 'No notifications match.');

    for (const query of ['severity=loud&from=yesterday', 'code=nope&to=2026-13-01', 'include_tests=maybe']) {
      const api = await server.call('GET', `/api/v1/notifications?${query}`);
      const page = await ui.get(`/ui/notifications?${query}`);
      t.equal(api.status, 400, `${query}: the API refuses`);
      t.equal(page.status, api.status, `${query}: same status`);
      t.same(
        shownErrors(page.body),
        api.body.error.details,
        `${query}: the API's messages beside the filters`,
      );
    }
  },
);

t.test('a certificate’s page says where it is used, as the delete refusal does', async (t) => {
  const { makeFixtures } = await import('../helpers/certificates.js');
  const { storeCertificate } = await import('../helpers/as2.js');
  const { freePort } = await import('../helpers/as2.js');
  const fixtures = makeFixtures(t);
  fixtures.selfSigned('used', '/CN=acme-as2/O=Acme');
  fixtures.selfSigned('spare', '/CN=spare/O=Acme');
  const used = await storeCertificate(server, fixtures, 'used');
  const spare = await storeCertificate(server, fixtures, 'spare');
  const orgId = org.body.data.id as number;
  const local = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: {
      local_organization_id: orgId,
      as2id: 'ACME',
      signing_certificate_id: used,
      decryption_certificate_ids: [used],
    },
  });
  t.equal(local.status, 201, local.raw);
  const third = await server.call('POST', '/api/v1/partners', { body: { name: 'umbrella' } });
  const remote = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: third.body.data.id,
      as2id: 'UMBRELLA',
      endpoint: 'https://umbrella.example/as2',
      partner_certificate_id: used,
    },
  });
  t.equal(remote.status, 201, remote.raw);
  const receiver = await server.call('POST', '/api/v1/plugins/configs?type=as2-receiver', {
    body: {
      name: 'tls-in',
      host: '127.0.0.1',
      port: await freePort(),
      tls_certificate_id: used,
      enabled: false,
    },
  });
  t.equal(receiver.status, 201, receiver.raw);

  const page = await ui.get(`/ui/certificates/${used}`);
  t.equal(page.status, 200);
  const section = page.body.slice(
    page.body.indexOf('id="usage"'),
    page.body.indexOf('</section>', page.body.indexOf('id="usage"')),
  );
  const rows = [...section.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) =>
    m[1]!
      .replace(/<\/td>/g, ' | ')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  t.same(rows, [
    'AS2 profile of organization | acme | decrypts what partners send us; signs what we send and our receipts |',
    // A partner's certificate also checks their signatures unless the profile names others.
    'AS2 profile of partner | umbrella | encrypts what we send the partner; checks the partner’s signatures |',
    'Plugin instance | as2-receiver/tls-in | the receiver’s HTTPS certificate |',
  ]);
  t.match(section, `href="/ui/organizations/${orgId}/profile"`, 'each use links to its page');
  t.match(section, `href="/ui/partners/${third.body.data.id}/profile"`);
  t.match(section, 'href="/ui/instances/as2-receiver/tls-in"');
  for (const link of [...section.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!)) {
    t.equal((await ui.get(link)).status, 200, `${link} opens`);
  }

  const refused = await server.call('DELETE', `/api/v1/certificates/${used}`);
  t.equal(refused.status, 409);
  t.same(
    refused.body.error.details.users.map((u: { name: string }) => u.name),
    ['acme', 'umbrella', 'as2-receiver/tls-in'],
    'the same uses refuse the delete',
  );
  const unused = await ui.get(`/ui/certificates/${spare}`);
  t.match(unused.body, 'Not used by any AS2 profile or plugin instance: it can be deleted.');
});
