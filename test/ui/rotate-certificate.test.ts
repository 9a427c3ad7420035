// Covers the operator's task "rotate our certificate" in a real browser: generate a new key pair, export the certificate for the partner (DER checked with openssl), put it beside the old one in the organization's decryption certificates, switch the signing certificate on the profile; also a CSR completed with a CA's certificate, the warning for a stored key that does not match, and the upload that refuses a wrong key. Page loads and form submissions are counted; axe finds no violation on the certificate pages; usable at 390 px.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { organization, partner, storeCertificate, syncSigned } from '../helpers/as2.js';
import { issueByTestCa, makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, openPage, shots, textOf } from './chromium.js';
import { countTask, fitsWidth, follow, noViolations, submit } from './task-counter.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const fixtures = makeFixtures(t);
fixtures.selfSigned('old', '/CN=as2.acme.example/O=Acme');
fixtures.selfSigned('globex', '/CN=as2.globex.example/O=Globex');
const oldId = await storeCertificate(server, fixtures, 'old');
const globexCert = await storeCertificate(server, fixtures, 'globex', false);
const acme = await organization(server, 'acme', 'ACME', oldId);
await partner(server, 'globex', 'GLOBEX', 'http://127.0.0.1:9/as2', globexCert, syncSigned);

const browser = await launchChromium(t);
const openssl = (args: string[], input?: Buffer | string) =>
  execFileSync('openssl', args, { cwd: fixtures.dir, input, stdio: ['pipe', 'pipe', 'pipe'] });

async function localProfile() {
  return (await server.call('GET', `/api/v1/as2/local-profiles/${acme}`)).body.data;
}

t.test('rotate our certificate: 6 page loads, 3 form submissions', async (t) => {
  const { page, problems } = await openPage(browser);
  const count = countTask(page);
  await page.goto(`${server.url}/ui/certificates`);
  await noViolations(t, page, 'the certificates page');
  await follow(page, 'a:has-text("Generate a key pair")');
  await noViolations(t, page, 'the generate form');
  await page.screenshot({ path: path.join(shots, 'certificate-generate.png'), fullPage: true });
  await page.fill('#f-name', 'Acme AS2 2027');
  await page.selectOption('#f-key', 'rsa-3072');
  await page.fill('#f-subject-common_name', 'as2.acme.example');
  await page.fill('#f-subject-organization', 'Acme');
  await page.fill('#f-subject-country', 'DE');
  await submit(page, count, 'form[action="/ui/certificates/generate"] button[type="submit"]');
  const newId = Number(/\/ui\/certificates\/(\d+)\?saved=generated$/.exec(page.url())?.[1]);
  t.ok(newId > 0, 'on the new certificate’s page');
  t.match(await textOf(page, '.alert-ok'), 'Key pair and self-signed certificate made');
  t.match(await textOf(page, 'main'), 'RSA 3072');
  t.match(await textOf(page, 'main'), 'stored, matches');

  // The partner gets the certificate as DER; openssl reads it and it is the one stored.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('a:has-text("DER (.cer)")'),
  ]);
  const der = readFileSync(await download.path());
  t.equal(download.suggestedFilename(), 'as2.acme.example.cer');
  const subject = openssl(['x509', '-inform', 'DER', '-noout', '-subject'], der).toString().trim();
  t.equal(subject, 'subject=C = DE, O = Acme, CN = as2.acme.example');
  const stored = (await server.call('GET', `/api/v1/certificates/${newId}`)).body.data;
  const fingerprint = openssl(['x509', '-inform', 'DER', '-noout', '-fingerprint', '-sha256'], der);
  t.equal(fingerprint.toString().trim().split('=')[1], stored.fingerprint_sha256);

  // Beside the old one: partners may encrypt to either while they switch.
  await page.selectOption('#f-rollover-profile', `local:${acme}`);
  await submit(page, count, 'form[action$="/rollover"] button[type="submit"]');
  t.match(await textOf(page, '.alert-ok'), 'Added beside the current certificates');
  t.match(await textOf(page, '#usage'), 'AS2 profile of organization acme decrypts what partners send us');
  t.same((await localProfile()).decryption_certificate_ids, [oldId, newId]);
  await noViolations(t, page, 'the new certificate with its rollover');
  await page.screenshot({ path: path.join(shots, 'certificate-rollover.png'), fullPage: true });

  // Then switch the signing certificate on the organization's profile.
  await follow(page, '#usage a:has-text("acme")');
  await page.selectOption('#f-signing_certificate_id', String(newId));
  await submit(page, count, 'form.record-form button[type="submit"]');
  const profile = await localProfile();
  t.equal(profile.signing_certificate_id, newId, 'signing with the new key');
  t.same(profile.decryption_certificate_ids, [oldId, newId], 'still decrypting with both');
  t.same(
    { loads: count.loads, submissions: count.submissions, posts: count.posts },
    { loads: 6, submissions: 3, posts: 3 },
  );
  t.same(problems, []);
  await page.context().close();
});

t.test("a CSR: downloaded, signed by a CA, completed with the CA's certificate", async (t) => {
  const { page, problems } = await openPage(browser);
  const count = countTask(page);
  await page.goto(`${server.url}/ui/certificates/generate`);
  await page.fill('#f-name', 'Acme CA-signed');
  await page.selectOption('#f-output', 'csr');
  await page.selectOption('#f-key', 'ec-P-256');
  await page.fill('#f-subject-common_name', 'edi.acme.example');
  await submit(page, count, 'form[action="/ui/certificates/generate"] button[type="submit"]');
  t.match(page.url(), /\/ui\/certificates\/requests\/\d+\?made=1$/);
  t.match(await textOf(page, 'main'), "Waiting for the CA's certificate");
  await noViolations(t, page, 'the request page');
  await page.screenshot({ path: path.join(shots, 'certificate-request.png'), fullPage: true });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('a:has-text("Download the CSR")'),
  ]);
  writeFileSync(path.join(fixtures.dir, 'acme.csr'), readFileSync(await download.path()));
  t.match(
    openssl(['req', '-in', 'acme.csr', '-verify', '-noout', '-subject']).toString(),
    'CN = edi.acme.example',
  );
  issueByTestCa(fixtures.dir, 'acme.csr', '/CN=Acme Test CA', 77);

  // The CA's own certificate first: it is for another key, and the page says so.
  await page.fill('#f-certificate', fixtures.read('ca.crt').toString());
  await submit(page, count, 'form[action$="/certificate"] button[type="submit"]');
  t.match(await textOf(page, '#f-certificate-error'), 'The certificate is for another key');
  t.equal(
    await page.inputValue('#f-certificate'),
    fixtures.read('ca.crt').toString(),
    'the pasted text is kept',
  );
  await page.fill('#f-certificate', fixtures.read('issued.crt').toString());
  await submit(page, count, 'form[action$="/certificate"] button[type="submit"]');
  t.match(page.url(), /\/ui\/certificates\/\d+\?saved=completed$/);
  t.match(await textOf(page, 'main'), 'Acme Test CA');
  t.match(await textOf(page, 'main'), 'stored, matches');
  t.same(
    { loads: count.loads, submissions: count.submissions, posts: count.posts },
    { loads: 4, submissions: 3, posts: 3 },
  );
  // The refusal is answered 400, which chromium logs; nothing else went wrong.
  t.same(problems, ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  await page.context().close();
});

t.test(
  'a stored key that does not match is shown as a warning; the upload refuses a wrong key',
  async (t) => {
    const { page } = await openPage(browser);
    // A row stored before uploads refused wrong keys.
    await sql(server.db.url, 'update certificate set private_key_matches = false where id = $1', [oldId]);
    await page.goto(`${server.url}/ui/certificates/${oldId}`);
    t.match(
      await textOf(page, '.key-mismatch'),
      'The stored private key does not belong to this certificate.',
    );
    t.equal(await page.getAttribute('.key-mismatch', 'role'), 'alert');
    await noViolations(t, page, 'the mismatch warning');
    await page.screenshot({ path: path.join(shots, 'certificate-key-mismatch.png'), fullPage: true });
    await sql(server.db.url, 'update certificate set private_key_matches = true where id = $1', [oldId]);

    fixtures.selfSigned('lonely', '/CN=lonely.example');
    const before = (await server.call('GET', '/api/v1/certificates')).body.data.total;
    await page.goto(`${server.url}/ui/certificates`);
    await page.setInputFiles('#f-certificate', path.join(fixtures.dir, 'lonely.crt'));
    await page.setInputFiles('#f-private_key', path.join(fixtures.dir, 'globex.key'));
    await page.fill('#f-description', 'wrong key on purpose');
    await Promise.all([
      page.waitForEvent('load'),
      page.click('form[action^="/ui/certificates/upload"] button[type="submit"]'),
    ]);
    t.match(await textOf(page, '#f-private_key-error'), 'does not belong to the certificate');
    t.equal(await page.locator('.alert-ok').count(), 0, 'no "Saved."');
    t.equal((await server.call('GET', '/api/v1/certificates')).body.data.total, before, 'nothing stored');
    await page.context().close();
  },
);

t.test('at 390 px the certificate pages need no sideways scrolling', async (t) => {
  const { page } = await openPage(browser, { width: 390, height: 844 });
  for (const url of ['/ui/certificates', '/ui/certificates/generate', `/ui/certificates/${oldId}`]) {
    await page.goto(`${server.url}${url}`);
    t.ok(await fitsWidth(page), `${url} fits`);
    await noViolations(t, page, `${url} at 390 px`);
  }
  await page.screenshot({ path: path.join(shots, 'certificate-390.png'), fullPage: true });
  await page.context().close();
});
