// Covers the partner onboarding wizard through the web UI's own requests (fastify inject, a real PostgreSQL and running instances): each step refuses exactly what the API refuses with the API's messages beside the fields, keeps the values typed, and leaves nothing made when a later record of the step is refused (organization and certificate, file writer, route and folders); a successful run makes the organization with its key, the partner with its certificate, its AS2 profile with a preset, a receiver on a suggested free port and a sender, a route each way with their folders; and the partner is called ready only when nothing is missing, the missing part named otherwise.
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { storeCertificate } from '../helpers/as2.js';
import { must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { multipart, type PartValue } from '../helpers/upload.js';
import { openUi, renderedForm, shownErrors } from './helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const ui = await openUi(server);
const fixtures = makeFixtures(t);
for (const name of ['acme', 'globex', 'other'])
  fixtures.selfSigned(name, `/CN=${name.toUpperCase()}/O=${name}`);

/** A multipart wizard form, posted as a browser does (the CSRF token in the query). */
async function postFiles(url: string, parts: Record<string, PartValue>) {
  const { payload, contentType } = await multipart(parts);
  const r = await server.app.inject({
    method: 'POST',
    url: `${url}${url.includes('?') ? '&' : '?'}_csrf=${ui.csrf}`,
    headers: { cookie: ui.cookie, 'content-type': contentType },
    payload,
  });
  return { status: r.statusCode, body: r.body, headers: r.headers };
}

const api = async (url: string) => (await server.call('GET', `/api/v1${url}`)).body.data;
const apiError = async (url: string, body: unknown) =>
  (await server.call('POST', `/api/v1${url}`, { body })).body.error;
const file = (name: string) => ({ file: fixtures.read(name), name });

t.test(
  'the organization step refuses what the API refuses, with its messages, and makes nothing',
  async (t) => {
    const page = await ui.get('/ui/wizard/organization');
    t.equal(page.status, 200);
    t.match(page.body, 'Upload a key and its certificate');
    // Whether this server has the certificate manager's generate route: without it the path is
    // unknown (404) or only another method's (405, as GET /certificates/{id}).
    const probe = await server.call('POST', '/api/v1/certificates/generate', { body: {} });
    const canGenerate = ![404, 405].includes(probe.status);
    t.equal(
      page.body.includes('id="generate-unavailable"'),
      !canGenerate,
      'the page says generation is unavailable exactly when the server lacks POST /certificates/generate',
    );
    t.equal(
      /value="generate"\s+disabled/.test(page.body),
      !canGenerate,
      'and the generate choice is disabled then',
    );

    const refused = await postFiles('/ui/wizard/organization', {
      name: 'Bad Name',
      as2id: '',
      source: 'upload',
      certificate: file('acme.crt'),
      private_key: file('acme.key'),
    });
    t.equal(refused.status, 400);
    const shown = shownErrors(refused.body);
    t.equal(
      shown.name,
      (await apiError('/organizations', { name: 'Bad Name' })).details.name,
      'name: the API’s message',
    );
    t.equal(
      shown.as2id,
      (
        await apiError('/as2/local-profiles', {
          local_organization_id: 1,
          as2id: '',
          signing_certificate_id: 1,
        })
      ).details.as2id,
      'AS2 id: the API’s message',
    );
    t.match(refused.body, 'value="Bad Name"', 'the typed name is kept');
    t.equal((await api('/organizations')).total, 0, 'no organization was made');
    t.equal((await api('/certificates')).total, 0, 'no certificate was stored');

    const none = await postFiles('/ui/wizard/organization', {
      name: 'acme',
      as2id: 'ACME',
      source: 'stored',
    });
    t.equal(none.status, 400);
    t.equal(shownErrors(none.body).source, 'Choose a stored certificate, or another source');

    const generate = await postFiles('/ui/wizard/organization', {
      name: 'acme',
      as2id: 'ACME',
      source: 'generate',
      key_algorithm: 'rsa-2048',
      output: 'self-signed',
    });
    if (canGenerate) {
      // With the certificate manager's generate route, the key is made and signs the new profile.
      t.equal(generate.status, 303, 'a generated key makes the organization');
      const org = (await api('/organizations?q=acme')).organizations[0];
      const profile = await api(`/as2/local-profiles/${org.id}`);
      const certificate = await api(`/certificates/${profile.signing_certificate_id}`);
      t.equal(certificate.has_private_key, true, 'the generated certificate holds its key');
      t.equal((await server.call('DELETE', `/api/v1/organizations/${org.id}`)).status, 204);
      t.equal((await server.call('DELETE', `/api/v1/certificates/${certificate.id}`)).status, 204);
    } else {
      t.equal(generate.status, 400, 'generate is refused by a server without the route');
      t.match(shownErrors(generate.body).source, 'cannot generate keys');
      t.equal((await api('/organizations')).total, 0, 'and nothing is made');
    }
  },
);

t.test('a refusal of the profile takes back the organization and certificate the step made', async (t) => {
  // Another organization holds the AS2 id ACME: only the profile, made last, is refused.
  const other = await must(server, '/organizations', { name: 'other' });
  const otherCert = await storeCertificate(server, fixtures, 'other');
  await must(server, '/as2/local-profiles', {
    local_organization_id: other.body.data.id,
    as2id: 'ACME',
    signing_certificate_id: otherCert,
  });
  const refused = await postFiles('/ui/wizard/organization', {
    name: 'acme',
    display_name: 'Acme Corp',
    as2id: 'ACME',
    source: 'upload',
    certificate: file('acme.crt'),
    private_key: file('acme.key'),
  });
  t.equal(refused.status, 409);
  t.equal(shownErrors(refused.body).as2id, 'AS2 ID ACME is used by the profile of organization other');
  t.match(refused.body, 'value="Acme Corp"', 'the display name is kept');
  t.same(
    (await api('/organizations')).organizations.map((o: { name: string }) => o.name),
    ['other'],
    'the organization the step made is gone again',
  );
  t.same(
    (await api('/certificates')).certificates.map((c: { id: number }) => c.id),
    [otherCert],
    'the certificate the step stored is gone again',
  );
});

let orgId = 0;
let partnerId = 0;

t.test('organization, partner and profile, one submission each', async (t) => {
  const org = await postFiles('/ui/wizard/organization', {
    name: 'acme',
    as2id: 'ACME-WIZ',
    source: 'upload',
    certificate: file('acme.crt'),
    private_key: file('acme.key'),
  });
  t.equal(org.status, 303, shownErrors(org.body).toString());
  const next = String(org.headers.location);
  t.match(next, /^\/ui\/wizard\/partner\?organization=\d+$/);
  orgId = Number(new URL(next, 'http://x').searchParams.get('organization'));
  const profile = await api(`/as2/local-profiles/${orgId}`);
  t.equal(profile.as2id, 'ACME-WIZ');
  t.equal(
    (await api(`/certificates/${profile.signing_certificate_id}`)).has_private_key,
    true,
    'our key is stored',
  );

  // Step 1 done: the start page continues, and step 2 offers what the partner needs from us.
  t.match(
    (await ui.get(`/ui/wizard?organization=${orgId}`)).body,
    'Continue: the partner and its certificate',
  );
  const step2 = await ui.get(next);
  t.match(step2.body, 'id="give-heading"', 'what to give the partner, from step 2 on');
  t.match(step2.body, '<code id="our-as2id">ACME-WIZ</code>');
  t.match(step2.body, `href="/ui/certificates/${profile.signing_certificate_id}/download"`);
  // Every option of the page but the interchange id qualifiers' (codes, some of them numbers too).
  const withoutQualifiers = step2.body.replace(/<select[^>]*name="[^"]*\.qualifier"[^]*?<\/select>/g, '');
  t.ok(withoutQualifiers.length < step2.body.length, 'the qualifier pickers were found and set aside');
  t.notMatch(
    withoutQualifiers,
    new RegExp(`<option value="${profile.signing_certificate_id}"`),
    'our own key is not offered as the partner’s certificate',
  );

  const partner = await postFiles(next, {
    name: 'globex',
    display_name: 'Globex',
    source: 'upload',
    certificate: file('globex.crt'),
  });
  t.equal(partner.status, 303, JSON.stringify(shownErrors(partner.body)));
  const toProfile = new URL(String(partner.headers.location), 'http://x');
  t.equal(toProfile.pathname, '/ui/wizard/profile');
  partnerId = Number(toProfile.searchParams.get('partner'));
  const certificateId = toProfile.searchParams.get('certificate')!;
  t.equal(
    (await api(`/certificates/${certificateId}`)).common_name,
    'GLOBEX',
    'the partner’s certificate is stored',
  );

  const form = await ui.get(`${toProfile.pathname}${toProfile.search}`);
  t.match(
    form.body,
    new RegExp(`<option value="${certificateId}"\\s+selected`),
    'the new certificate is picked',
  );
  const fields = renderedForm(form.body, `/ui/wizard/profile?organization=${orgId}&amp;partner=${partnerId}`);
  t.equal(fields.interop_preset, '', 'no preset unless chosen');
  t.equal(fields.as2id, 'GLOBEX', 'the AS2 id guessed from the certificate’s name');
  // Opened by its tab (no certificate in the address), the step still has the partner's certificate.
  const byTab = await ui.get(`/ui/wizard/profile?organization=${orgId}&partner=${partnerId}`);
  t.match(byTab.body, new RegExp(`<option value="${certificateId}"\\s+selected`));

  const bad = await ui.post(`/ui/wizard/profile?organization=${orgId}&partner=${partnerId}`, {
    ...fields,
    as2id: 'GLOBEX',
    endpoint: 'ftp://globex',
    interop_preset: 'mendelson',
  });
  t.equal(bad.status, 400);
  const apiSays = await apiError('/as2/remote-profiles', {
    business_partner_id: partnerId,
    as2id: 'GLOBEX',
    endpoint: 'ftp://globex',
    partner_certificate_id: Number(certificateId),
  });
  t.equal(
    shownErrors(bad.body).endpoint,
    apiSays.details.endpoint,
    'the endpoint refused as the API refuses it',
  );
  t.match(bad.body, 'value="ftp://globex"', 'the endpoint typed is kept');

  const saved = await ui.post(`/ui/wizard/profile?organization=${orgId}&partner=${partnerId}`, {
    ...fields,
    as2id: 'GLOBEX',
    endpoint: 'http://127.0.0.1:9/as2',
    interop_preset: 'mendelson',
  });
  t.equal(saved.status, 303, JSON.stringify(shownErrors(saved.body)));
  t.equal(saved.headers.location, `/ui/wizard/instances?organization=${orgId}&partner=${partnerId}`);
  const remote = await api(`/as2/remote-profiles/${partnerId}`);
  t.equal(remote.interop_preset, 'mendelson');
  t.equal(remote.partner_certificate_id, Number(certificateId));
});

t.test('receiver on a suggested free port, a sender, and a route each way', async (t) => {
  const ids = `organization=${orgId}&partner=${partnerId}`;
  const page = await ui.get(`/ui/wizard/instances?${ids}`);
  const fields = renderedForm(
    page.body,
    `/ui/wizard/instances?organization=${orgId}&amp;partner=${partnerId}`,
  );
  t.equal(fields.receiver, '', 'no receiver yet: a new one');
  const port = Number(fields.receiver_port);
  t.ok(port >= 10080, `a port is suggested (${port})`);
  const made = await ui.post(`/ui/wizard/instances?${ids}`, { ...fields, receiver_host: '127.0.0.1' });
  t.equal(made.status, 303, JSON.stringify(shownErrors(made.body)));
  t.equal(made.headers.location, `/ui/wizard/routes?${ids}&receiver=as2-in&sender=as2-out`);
  const services = await api('/services');
  for (const name of ['as2-in', 'as2-out'])
    t.equal(services.find((s: { name: string }) => s.name === name)?.status, 'running', `${name} runs`);
  t.equal((await api('/plugins/configs/as2-receiver/as2-in')).port, port, 'on the suggested port');
  const again = renderedForm(
    (await ui.get(`/ui/wizard/instances?${ids}`)).body,
    `/ui/wizard/instances?organization=${orgId}&amp;partner=${partnerId}`,
  );
  t.equal(again.receiver, 'as2-in', 'the receiver is reused next time');
  t.not(Number(again.receiver_port), port, 'and a new one would get another port');

  const routesPage = await ui.get(String(made.headers.location));
  t.match(
    routesPage.body,
    'No inbound route: messages from globex to acme',
    'the missing inbound route is named',
  );
  t.match(routesPage.body, 'No outbound route', 'the missing outbound route is named');
  t.match(routesPage.body, 'is not ready');
  const routeFields = renderedForm(
    routesPage.body,
    `/ui/wizard/routes?organization=${orgId}&amp;partner=${partnerId}`,
  );
  t.equal(
    routeFields.outbox_directory,
    path.join(server.dataDir, 'partners/globex/outbox'),
    'folders default to the data directory',
  );

  const noSender = await ui.post(`/ui/wizard/routes?${ids}`, { ...routeFields, sender: 'nope' });
  t.equal(noSender.status, 400);
  t.equal(shownErrors(noSender.body).sender, 'Choose an as2-sender; make one in step 4 when there is none');
  t.equal((await api('/routes')).total, 0, 'a refused step makes no route');

  const inside = await ui.post(`/ui/wizard/routes?${ids}`, {
    ...routeFields,
    sent_directory: path.join(routeFields.outbox_directory!, 'sent'),
  });
  t.equal(inside.status, 400);
  t.equal(shownErrors(inside.body).sent_directory, 'Must not be base_directory or inside it');
  t.equal((await api('/routes')).total, 0, 'the inbound route the step made is gone again');
  t.notOk(
    (await api('/services')).some((s: { name: string }) => s.name === 'globex-inbox'),
    'so is the file writer',
  );
  t.notOk(existsSync(routeFields.outbox_directory!), 'and the folder it made');

  const routes = await ui.post(`/ui/wizard/routes?${ids}`, routeFields);
  t.equal(routes.status, 303, JSON.stringify(shownErrors(routes.body)));
  t.equal(routes.headers.location, `/ui/wizard/check?${ids}`);
  t.same(
    (await api('/routes')).routes
      .map((r: Record<string, string>) => `${r.source_plugin}:${r.from}>${r.to}:${r.target_plugin}`)
      .sort(),
    ['as2-in:globex>acme:globex-inbox', 'globex-outbox:acme>globex:as2-out'],
  );
  t.ok(existsSync(routeFields.outbox_directory!), 'the outbox folder exists');
  const check = await ui.get(`/ui/wizard/check?${ids}`);
  t.match(check.body, 'globex is ready');
  t.match(
    check.body,
    /<code id="our-url">http:\/\/localhost:\d+\/as2<\/code>/,
    'the URL to give the partner',
  );
  t.match(check.body, 'id="no-notifier"', 'the last step offers a notifier while none exists');
  t.match(check.body, 'href="/ui/instances/new/notification-email"');
});

t.test('not ready while an instance or a route is missing, and says which', async (t) => {
  const ids = `organization=${orgId}&partner=${partnerId}`;
  t.equal((await server.call('POST', '/api/v1/services/as2-sender/as2-out/stop', { body: {} })).status, 200);
  let check = await ui.get(`/ui/wizard/check?${ids}`);
  t.match(check.body, 'globex is not ready: 1 part is missing');
  t.match(check.body, 'as2-sender as2-out is stopped');
  await server.call('POST', '/api/v1/services/as2-sender/as2-out/start', { body: {} });
  const inbound = (await api('/routes')).routes.find(
    (r: { source_plugin: string }) => r.source_plugin === 'as2-in',
  );
  t.equal((await server.call('DELETE', `/api/v1/routes/${inbound.id}`)).status, 204);
  check = await ui.get(`/ui/wizard/check?${ids}`);
  t.match(check.body, 'globex is not ready: 1 part is missing');
  t.match(check.body, 'No inbound route: messages from globex to acme');
  const overview = await ui.get('/ui/wizard?organization=' + orgId);
  t.match(overview.body, '1 missing', 'the overview says it too');
});
