// Covers promoting an install to an empty one in the browser alone (Debian chromium +
// playwright-core): on install A an administrator downloads the organization's key as a PKCS#12
// file (openssl opens it with the password) and exports the configuration; on the empty install C
// the plan is first refused for the missing key, the PKCS#12 file is uploaded, the configuration
// file is uploaded (not pasted), the plan stays as wide as the window with the certificate shown
// by subject and fingerprint (its PEM behind a toggle), and the apply makes the instances'
// directories and says that both instances run. The sealed export goes to install D, which shares
// A's secret key, and brings the key in the file itself; the page says that condition.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { organization } from '../helpers/as2.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, textOf } from './chromium.js';

const a = await startTestServer(t, { developerBuild: true, listen: true });
const c = await startTestServer(t, { developerBuild: true, listen: true });
const d = await startTestServer(t, { developerBuild: true, listen: true });
const browser = await launchChromium(t);
const root = mkdtempSync(path.join(tmpdir(), 'pier-promotion-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const p12Password = 'Promote-Me-Safely-9';

async function ok(s: TestServer, method: string, url: string, body?: unknown) {
  const answer = await s.call(method, url, body === undefined ? {} : { body });
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.raw}`);
  return answer.body.data;
}

// Install A as the wizard leaves it: our key, our organization, a partner, a folder each way.
const key = await ok(a, 'POST', '/api/v1/certificates/generate', {
  name: 'Ours signing',
  key: { algorithm: 'rsa', bits: 2048 },
  subject: { common_name: 'as2.ours.example', organization: 'Ours' },
  output: 'self-signed',
});
await organization(a, 'ours', 'OURS', key.id);
await ok(a, 'POST', '/api/v1/partners', { name: 'acme' });
const folders = {
  outbox: path.join(root, 'partners/acme/outbox'),
  sent: path.join(root, 'partners/acme/sent'),
  inbox: path.join(root, 'partners/acme/inbox'),
};
await ok(a, 'POST', '/api/v1/plugins/configs?type=file-poller', {
  name: 'acme-outbox',
  base_directory: folders.outbox,
  processed_directory: folders.sent,
  from: 'ours',
  to: 'acme',
  path_pattern: '{filename}',
});
await ok(a, 'POST', '/api/v1/plugins/configs?type=file-writer', {
  name: 'acme-inbox',
  directory: folders.inbox,
});
// C stands on another host: none of A's folders exist there.
rmSync(path.join(root, 'partners'), { recursive: true, force: true });

let p12File = '';
let configFile = '';

t.test('on A: the key as PKCS#12, and the configuration file', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${a.url}/ui/certificates/${key.id}`);
  await noSeriousViolations(t, page, 'certificate page with the PKCS#12 form');
  await page.fill('#p12-password', p12Password);
  await page.fill('#p12-password-again', 'something else');
  await page.click('button:has-text("Download key and certificate")');
  t.match(await textOf(page, '.has-error'), /Is not the same password/);
  t.equal(await page.inputValue('#p12-password'), '', 'a password is never sent back to the page');

  await page.fill('#p12-password', p12Password);
  await page.fill('#p12-password-again', p12Password);
  const download = page.waitForEvent('download');
  await page.click('button:has-text("Download key and certificate")');
  const p12 = await download;
  t.equal(p12.suggestedFilename(), 'as2.ours.example.p12');
  p12File = path.join(root, 'ours.p12');
  await p12.saveAs(p12File);
  const out = execFileSync('openssl', ['pkcs12', '-in', p12File, '-passin', 'stdin', '-nodes'], {
    input: `${p12Password}\n`,
  }).toString();
  t.match(out, /BEGIN PRIVATE KEY/, 'openssl opens it with the password');

  await page.goto(`${a.url}/ui/config`);
  const exported = page.waitForEvent('download');
  await page.click('a:has-text("Export all")');
  configFile = path.join(root, 'pier-config.yaml');
  await (await exported).saveAs(configFile);
  t.same(
    problems.filter((p) => !/status of 400/.test(p)),
    [],
    'no console error but the refused passwords',
  );
});

t.test('on C, empty: key by PKCS#12, file by upload, directories made, instances running', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${c.url}/ui/config`);
  await page.setInputFiles('#config-file', configFile);
  await page.click('button:has-text("Show the plan")');
  t.match(
    await textOf(page, '[role=alert]'),
    /holds no private key.*PKCS#12 file/,
    'the refusal says where the key comes from',
  );

  await page.goto(`${c.url}/ui/certificates`);
  await page.setInputFiles('#f-certificate', p12File);
  await page.fill('#f-password', p12Password);
  await page.fill('#f-description', 'Ours signing');
  await page.click('button:has-text("Upload")');
  await page.waitForURL(/\/ui\/certificates\/\d+/);
  t.match(await textOf(page, 'dl.facts'), /Private key stored, matches/);

  await page.goto(`${c.url}/ui/config`);
  await page.setInputFiles('#config-file', configFile);
  await page.click('button:has-text("Show the plan")');
  const plan = await textOf(page, 'table.plan');
  t.match(plan, /Create organizations ours/);
  t.match(plan, /Create instances acme-outbox/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(width <= 1280, `the plan is as wide as the window (${width} px)`);
  await noSeriousViolations(t, page, 'the plan');
  t.notOk(existsSync(folders.outbox), 'the plan made nothing');

  await page.click('button:has-text("Apply these changes")');
  await page.waitForSelector('#applied-heading');
  const outcome = await textOf(page, '.apply-outcome');
  t.match(outcome, new RegExp(`${folders.outbox} \\(acme-outbox, base_directory\\): made`));
  t.match(outcome, new RegExp(`${folders.sent} \\(acme-outbox, processed_directory\\): made`));
  t.match(outcome, /file-poller acme-outbox: running/);
  t.match(outcome, /file-writer acme-inbox: running/);
  t.ok(existsSync(folders.outbox) && existsSync(folders.inbox));
  const services = await ok(c, 'GET', '/api/v1/services');
  for (const name of ['acme-outbox', 'acme-inbox']) {
    t.equal(services.find((s: { name: string }) => s.name === name)?.status, 'running', `${name} runs on C`);
  }
  await noSeriousViolations(t, page, 'the apply outcome');
  t.same(
    problems.filter((p) => !/status of 400/.test(p)),
    [],
    'no console error',
  );
});

t.test('a sealed export takes the key in the file to an install with the same secret key', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${a.url}/ui/config`);
  t.match(
    await textOf(page, '.sealed-export'),
    /only an install started with the same secret key can open them/,
  );
  const exported = page.waitForEvent('download');
  await page.click('button:has-text("Export all, private keys sealed")');
  const sealedFile = path.join(root, 'sealed.yaml');
  await (await exported).saveAs(sealedFile);

  await page.goto(`${d.url}/ui/config`);
  await page.setInputFiles('#config-file', sealedFile);
  await page.click('button:has-text("Show the plan")');
  // D holds no certificate yet: the plan creates it, shown by subject and fingerprint.
  t.match(await textOf(page, 'table.plan'), /certificate O=Ours, CN=as2\.ours\.example, SHA-256/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(width <= 1280, `the plan with a certificate is as wide as the window (${width} px)`);
  t.notOk(await page.isVisible('details.plan-value pre'), 'the PEM is behind its toggle');
  await page.click('details.plan-value summary >> nth=0');
  t.match(await textOf(page, 'details.plan-value[open] pre'), /BEGIN CERTIFICATE/);
  await noSeriousViolations(t, page, 'the plan of a file with a certificate');
  await page.click('button:has-text("Apply these changes")');
  await page.waitForSelector('#applied-heading');
  const certificates = (await ok(d, 'GET', '/api/v1/certificates')).certificates;
  t.equal(certificates.length, 1);
  t.match(certificates[0], {
    common_name: 'as2.ours.example',
    has_private_key: true,
    private_key_matches: true,
  });
  const pem = new X509Certificate(
    execFileSync('openssl', ['pkcs12', '-in', p12File, '-passin', `pass:${p12Password}`, '-nokeys']),
  );
  t.equal(
    certificates[0].fingerprint_sha256.replace(/:/g, '').toLowerCase(),
    pem.fingerprint256.replace(/:/g, '').toLowerCase(),
    'the same certificate on A, C and D',
  );
  t.same(problems, [], 'no console error');
});
