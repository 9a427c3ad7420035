// Covers an SFTP instance's page in a real browser (Debian chromium + playwright-core) against a real sshd: the connection check shows each step and, at first contact, the fingerprint the server presents with a button to pin it; pinning stores it and the next check passes every step; the page is accessible and without CSP violations; and writes the screenshots (test/ui/chromium.ts says where).
import path from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { startSshd } from '../helpers/sshd.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const sshd = await startSshd(t);
const inbox = await sshd.directory('inbox');
await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });
await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } });
const made = await server.call('POST', '/api/v1/plugins/configs?type=sftp-poller', {
  body: {
    name: 'globex-sftp',
    enabled: false,
    host: sshd.host,
    port: sshd.port,
    username: sshd.user,
    password: sshd.password,
    remote_directory: inbox,
    processed_directory: path.join(sshd.home, 'processed'),
    from: 'globex',
    to: 'acme',
  },
});
if (made.status !== 201) throw new Error(made.raw);
const browser = await launchChromium(t);

t.test('first contact: check, see the fingerprint, pin it, check again', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/instances/sftp-poller/globex-sftp`);
  await page.click('button:has-text("Check connection")');
  await page.waitForSelector('#check-result');
  const first = await textOf(page, '#check-result');
  t.match(first, 'Connection check: failed');
  t.match(first, `The server presents the host key ${sshd.fingerprint} and none is pinned yet`);
  for (const step of ['resolve', 'connect', 'host_key', 'authenticate', 'list', 'write'])
    t.match(first, step, `step ${step} shown`);
  t.notMatch(await page.content(), sshd.password, 'the password is never on the page');
  await noSeriousViolations(t, page, 'first contact');
  await page.screenshot({ path: path.join(shots, 'sftp-first-contact.png'), fullPage: true });

  await page.click(`button:has-text("Pin ${sshd.fingerprint}")`);
  await page.waitForSelector('text=Saved.');
  t.equal(
    await page.inputValue('#f-host_key_fingerprint'),
    sshd.fingerprint,
    'the form shows the pinned key',
  );
  await page.click('button:has-text("Check connection")');
  await page.waitForSelector('#check-result');
  const second = await textOf(page, '#check-result');
  t.match(second, 'Connection check: ok');
  t.notMatch(second, 'Pin', 'nothing to pin any more');
  await page.locator('#check-result').screenshot({ path: path.join(shots, 'sftp-check.png') });
  t.same(problems, [], 'no console errors or CSP violations');
  await page.context().close();
});
