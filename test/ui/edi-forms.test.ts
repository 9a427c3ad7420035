// Covers EDI in the web UI without typing JSON, in a real browser (chromium + playwright-core): interchange ids entered with the qualifier picker on the organization page, the partner page and in the wizard's first two steps (stored as the API stores them, one form per step), a partner's envelope settings as fields (stored, and a refusal worded as the API's with nothing stored), and EDI sent as JSON from its form: pasted documents previewed (the interchange with the partner's ids and settings) and then sent, an uploaded interchange previewed and sent, a bad document refused with the API's message; the sent message's page links its JSON form (which answers pier's JSON) and shows element names in its tree; axe with no serious or critical violation and no console error.
import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { must, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const dir = await tempDir(t);
const acme = await must(server, '/organizations', { name: 'acme' });
const globex = await must(server, '/partners', {
  name: 'globex',
  interchange_ids: [{ qualifier: '14', id: '5412345000013' }],
});
const acmeId = String(acme.body.data.id);
const globexId = String(globex.body.data.id);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });
const browser = await launchChromium(t);

/** Console errors besides the 400 a refused form answers with, as the API refuses. */
const unexpected = (problems: string[]) => problems.filter((p) => !p.includes('status of 400 (Bad Request)'));

const api = async (url: string) => (await server.call('GET', `/api/v1${url}`)).body.data;

/** Clicks a submit button and waits for the page it leads to. */
async function submit(page: Page, button: string) {
  await Promise.all([page.waitForNavigation(), page.click(`button:has-text("${button}")`)]);
}

t.test('interchange ids with the qualifier picker on the organization page', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui/organizations/${acmeId}`);
  t.equal(await page.locator('#f-interchange_ids').count(), 1, 'the ids are fields, not a JSON box');
  t.equal(await page.locator('textarea#f-interchange_ids').count(), 0);
  await page.selectOption('#f-interchange_ids-qualifier-0', 'ZZ');
  await page.fill('#f-interchange_ids-id-0', 'ACME');
  await page.selectOption('#f-interchange_ids-qualifier-1', '1');
  await page.fill('#f-interchange_ids-id-1', '123456789');
  await noSeriousViolations(t, page, 'organization with interchange ids');
  await submit(page, 'Save');
  t.match(await textOf(page, 'main'), 'Saved.');
  t.same(
    (await api(`/organizations/${acmeId}`)).interchange_ids,
    [
      { qualifier: 'ZZ', id: 'ACME' },
      { qualifier: '1', id: '123456789' },
    ],
    'stored as the API stores them',
  );
  t.equal(
    await page.inputValue('#f-interchange_ids-qualifier-1'),
    '1',
    'the picker shows the stored qualifier',
  );
  t.match(await textOf(page, '#f-interchange_ids-qualifier-1 option:checked'), 'D-U-N-S number', 'in words');
  // An id typed without anything picked for it is "any qualifier"; a qualifier without an id is refused.
  await page.selectOption('#f-interchange_ids-qualifier-2', 'ZZ');
  await submit(page, 'Save');
  const refused = await server.call('PUT', `/api/v1/organizations/${acmeId}`, {
    body: {
      interchange_ids: [
        { qualifier: 'ZZ', id: 'ACME' },
        { qualifier: '1', id: '123456789' },
        { qualifier: 'ZZ', id: '' },
      ],
    },
  });
  t.equal(refused.status, 400);
  t.equal(
    await textOf(page, '#f-interchange_ids-error'),
    refused.body.error.details.interchange_ids,
    'refused with the API’s message',
  );
  t.equal((await api(`/organizations/${acmeId}`)).interchange_ids.length, 2, 'nothing stored');
  t.same(unexpected(problems), [], 'no console errors');
  await page.context().close();
});

t.test('a partner’s interchange ids and envelope settings as fields', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui/partners/${globexId}`);
  t.equal(await page.inputValue('#f-interchange_ids-qualifier-0'), '14');
  t.equal(await page.inputValue('#f-interchange_ids-id-0'), '5412345000013');
  t.equal(await page.locator('textarea#f-edi_envelope').count(), 0, 'no JSON box for the envelope');
  await page.fill('#f-edi_envelope-x12_version', '00501');
  await page.check('#f-edi_envelope-test');
  await page.fill('#f-edi_envelope-edifact_segment', '!');
  await noSeriousViolations(t, page, 'partner with envelope settings');
  await page.screenshot({ path: path.join(shots, 'partner-edi-fields.png'), fullPage: true });
  await submit(page, 'Save');
  const stored = await api(`/partners/${globexId}`);
  t.match(stored.edi_envelope, { x12_version: '00501', test: true, edifact_segment: '!', x12_element: '*' });
  t.same(stored.interchange_ids, [{ qualifier: '14', id: '5412345000013' }], 'the ids unchanged');
  t.equal(await page.inputValue('#f-edi_envelope-x12_version'), '00501', 'shown again');
  t.ok(await page.isChecked('#f-edi_envelope-test'));

  await page.fill('#f-edi_envelope-x12_element', '~');
  await submit(page, 'Save');
  const refused = await server.call('PUT', `/api/v1/partners/${globexId}`, {
    body: { edi_envelope: { ...stored.edi_envelope, x12_element: '~' } },
  });
  t.equal(refused.status, 400);
  t.equal(await textOf(page, '#f-edi_envelope-error'), refused.body.error.details.edi_envelope);
  t.equal(await page.inputValue('#f-edi_envelope-x12_element'), '~', 'what was typed is kept');
  t.equal((await api(`/partners/${globexId}`)).edi_envelope.x12_element, '*', 'nothing stored');
  t.same(unexpected(problems), [], 'no console errors');
  await page.context().close();
});

t.test('the wizard takes the interchange ids in its first two steps, one form each', async (t) => {
  const fixtures = makeFixtures(t);
  fixtures.selfSigned('initech', '/CN=INITECH/O=initech');
  fixtures.selfSigned('umbrella', '/CN=UMBRELLA/O=umbrella');
  const { page, problems } = await openPage(browser);
  let submissions = 0;
  await page.goto(`${base}/ui/wizard/organization`);
  await page.fill('#f-name', 'initech');
  await page.fill('#f-as2id', 'INITECH');
  await page.selectOption('#f-interchange_ids-qualifier-0', 'ZZZ');
  await page.fill('#f-interchange_ids-id-0', 'INITECH');
  await page.check('#source-upload');
  await page.setInputFiles('#f-certificate', {
    name: 'i.crt',
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read('initech.crt'),
  });
  await page.setInputFiles('#f-private_key', {
    name: 'i.key',
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read('initech.key'),
  });
  await noSeriousViolations(t, page, 'wizard step 1 with interchange ids');
  submissions++;
  await submit(page, 'Create organization and key');
  t.match(page.url(), /\/ui\/wizard\/partner/, 'on to the partner step');
  await page.fill('#f-name', 'umbrella');
  await page.selectOption('#f-interchange_ids-qualifier-0', '01');
  await page.fill('#f-interchange_ids-id-0', '987654321');
  await page.check('#source-upload');
  await page.setInputFiles('#f-certificate', {
    name: 'u.crt',
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read('umbrella.crt'),
  });
  submissions++;
  await submit(page, 'Create partner');
  t.match(page.url(), /\/ui\/wizard\/profile/, 'on to the profile step');
  t.equal(submissions, 2, 'the ids took no form of their own');
  const organizations = (await api('/organizations?q=initech')).organizations;
  const partners = (await api('/partners?q=umbrella')).partners;
  t.same(organizations[0].interchange_ids, [{ qualifier: 'ZZZ', id: 'INITECH' }], 'the organization’s id');
  t.same(partners[0].interchange_ids, [{ qualifier: '01', id: '987654321' }], 'the partner’s id');
  t.same(unexpected(problems), [], 'no console errors');
  await page.context().close();
});

const documents = {
  standard: 'x12',
  sets: [
    {
      type: '850',
      segments: [
        { tag: 'BEG', elements: ['00', 'SA', 'PO-UI-1', '', '20261127'] },
        { tag: 'PO1', elements: ['1', '12', 'EA', '4.25', 'PE', 'VP', 'WIDGET-9'] },
      ],
    },
  ],
};

t.test('send documents as JSON from the form: preview, then send', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui/messages`);
  await Promise.all([page.waitForNavigation(), page.click('a:has-text("Send EDI as JSON")')]);
  await page.selectOption('#edi-from', 'acme');
  await page.selectOption('#edi-to', 'globex');
  await page.selectOption('#edi-target', 'out');
  await page.fill('#edi-json', JSON.stringify(documents, null, 2));
  await submit(page, 'Show the interchange');
  const preview = await page.innerText('#edi-preview pre');
  t.match(preview, /^ISA\*00\*/, 'the interchange it will make');
  t.match(preview, '*ZZ*ACME           *14*5412345000013  *', 'with the parties’ first ids');
  t.match(preview, '*00501*000000001*0*T*', 'the partner’s version and test flag');
  t.match(preview, 'BEG*00*SA*PO-UI-1**20261127~');
  t.equal((await api('/messages?to=globex')).messages.length, 0, 'nothing sent by the preview');
  t.equal(await page.inputValue('#edi-to'), 'globex', 'the choices are kept');
  await noSeriousViolations(t, page, 'send EDI as JSON with a preview');
  await page.screenshot({ path: path.join(shots, 'send-edi-json-preview.png'), fullPage: true });

  await submit(page, 'Send');
  t.match(page.url(), /\/ui\/messages\/[0-9a-f-]{36}\?done=sent$/, 'on the message’s page');
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  const message = await api(`/messages/${id}`);
  t.equal(message.file_name, '000000001.edi');
  t.match(await textOf(page, 'section[aria-labelledby="edi-heading"]'), 'ZZ:ACME');
  const link = await page.getAttribute('#edi-json-link', 'href');
  t.equal(link, `/ui/messages/${id}/payload?format=json`, 'the JSON form is linked');
  const json = await page.evaluate(async (url) => (await fetch(url)).json(), link!);
  t.equal(json.format, 'pier-edi-json/1', 'and answers pier’s JSON');
  t.equal(json.groups[0].transactions[0].segments[0].elements[2], 'PO-UI-1');
  t.same(unexpected(problems), [], 'no console errors');
  await page.context().close();
});

t.test('send an uploaded interchange; element names in its tree; a bad document refused', async (t) => {
  const { page, problems } = await openPage(browser);
  const orders = {
    format: 'pier-edi-json/1',
    standard: 'edifact',
    delimiters: { segment: "'", element: '+', component: ':', repetition: '', release: '?' },
    una: null,
    leading: '',
    line_break: '\n',
    header: {
      tag: 'UNB',
      elements: [['UNOC', '3'], ['ACME', 'ZZZ'], ['5412345000013', '14'], ['261127', '1200'], '77'],
    },
    messages: [
      {
        header: { tag: 'UNH', elements: ['1', ['ORDERS', 'D', '96A', 'UN']] },
        segments: [
          { tag: 'BGM', elements: ['220', 'PO-77', '9'] },
          { tag: 'DTM', elements: [['137', '20261127', '102']] },
        ],
        trailer: { tag: 'UNT', elements: ['4', '1'] },
      },
    ],
    trailer: { tag: 'UNZ', elements: ['1', '77'] },
    trailing: '',
  };
  await page.goto(`${base}/ui/messages/edi-json`);
  await page.selectOption('#edi-from', 'acme');
  await page.selectOption('#edi-to', 'globex');
  await page.selectOption('#edi-target', 'out');
  await page.fill('#edi-file_name', 'orders-77.edi');
  await page.setInputFiles('#edi-file', {
    name: 'orders.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(orders)),
  });
  await submit(page, 'Show the interchange');
  t.match(await textOf(page, '#edi-preview pre'), "UNB+UNOC:3+ACME:ZZZ+5412345000013:14+261127:1200+77'");
  t.match(await page.inputValue('#edi-json'), '"ORDERS"', 'the file’s JSON is in the box for the send');
  await submit(page, 'Send');
  t.match(page.url(), /\/ui\/messages\/[0-9a-f-]{36}\?done=sent$/);
  await page.waitForSelector('#edi-tree .edi-tree');
  await page.click('#edi-tree summary:has-text("Message")');
  const tree = await textOf(page, '#edi-tree');
  for (const name of ['Beginning of message', 'Document/message name, coded', 'Date/time/period'])
    t.match(tree, name, `the tree names ${name}`);
  t.match(tree, 'Order', 'and says what a code means (220)');

  await page.goto(`${base}/ui/messages/edi-json`);
  await page.selectOption('#edi-from', 'acme');
  await page.selectOption('#edi-to', 'globex');
  await page.selectOption('#edi-target', 'out');
  const bad = { ...documents, sets: [{ type: '850', segments: [{ tag: 'BEG', elements: ['00', 'S*A'] }] }] };
  await page.fill('#edi-json', JSON.stringify(bad));
  await submit(page, 'Send');
  const apiAnswer = await server.call('POST', '/api/v1/messages/edi', {
    body: { from: 'acme', to: 'globex', target: 'out', documents: bad },
  });
  t.equal(apiAnswer.status, 400);
  t.equal(await textOf(page, '#edi-json-error'), apiAnswer.body.error.details.documents, 'the API’s message');
  t.equal(await page.inputValue('#edi-json'), JSON.stringify(bad), 'what was pasted is kept');
  t.equal((await api('/messages?to=globex')).messages.length, 2, 'nothing more stored');
  t.same(unexpected(problems), [], 'no console errors');
  await page.context().close();
});
