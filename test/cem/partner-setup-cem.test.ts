// Covers docs/partner-setup.md's "Renewing certificates with CEM" between two `pier serve` processes (acme and globex, set up by the document's own blocks): acme sends its new certificate with the first CEM block, globex's second block waits for the request and accepts it, and the acceptance travels back to acme, whose organization now decrypts with both certificates.
import { spawn } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../helpers/as2.js';
import { blocksOf, partnerSetup, sectionOf, startPier } from '../helpers/document-pier.js';
import { tempDir } from '../helpers/flow.js';
import { waitFor } from '../helpers/wait.js';

const setup = blocksOf(partnerSetup, 'sh');
const cem = blocksOf(sectionOf(partnerSetup, 'Renewing certificates with CEM'), 'bash');
t.equal(cem.length, 2, 'the CEM section has its two blocks');

interface Side {
  name: string;
  as2id: string;
  work: string;
  url: string;
  receiverPort: number;
}

/** A script run as the document's reader would, its output followed while it runs. */
function bash(script: string, side: Side, partner: Side) {
  let out = '';
  const child = spawn('bash', ['-c', script], {
    env: {
      ...process.env,
      PIER: side.url,
      TOKEN: '',
      WORK: side.work,
      ORG: side.name,
      OUR_AS2_ID: side.as2id,
      PARTNER: partner.name,
      PARTNER_AS2_ID: partner.as2id,
      PARTNER_URL: `http://127.0.0.1:${partner.receiverPort}/as2`,
      RECEIVER_HOST: '127.0.0.1',
      RECEIVER_PORT: String(side.receiverPort),
    },
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  return { done, out: () => out };
}

t.test('acme sends its new certificate; globex accepts it; acme hears so', async (t) => {
  const [urlA, urlB] = await Promise.all([startPier(t, 'acme'), startPier(t, 'globex')]);
  const side = async (name: string, as2id: string, url: string): Promise<Side> => ({
    name,
    as2id,
    work: await tempDir(t),
    url,
    receiverPort: await freePort(),
  });
  const a = await side('acme', 'ACME', urlA);
  const b = await side('globex', 'GLOBEX', urlB);
  for (const [one, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const keys = bash(setup[0]!, one, other);
    t.equal(await keys.done, 0, keys.out());
  }
  await copyFile(path.join(a.work, 'our.crt'), path.join(b.work, 'partner.crt'));
  await copyFile(path.join(b.work, 'our.crt'), path.join(a.work, 'partner.crt'));

  // globex configures itself, then waits for the request with the second CEM block.
  const globex = bash(`${setup[1]!}\n${cem[1]!}`, b, a);
  await waitFor(
    () => (globex.out().includes('Give your partner') ? true : undefined),
    'globex configured',
    120_000,
  );
  const acme = bash(`${setup[1]!}\n${cem[0]!}`, a, b);
  t.equal(await acme.done, 0, acme.out());
  const sent = JSON.parse(
    acme
      .out()
      .split('\n')
      .find((l) => l.includes('"request_id"'))!,
  ).data;
  t.match(sent, { direction: 'outbound', state: 'pending', partner: 'globex', organization: 'acme' });
  t.equal(await globex.done, 0, globex.out());
  t.match(globex.out(), /"state":"accepted"/, 'globex accepted it');

  const get = async (url: string) => (await (await fetch(url)).json()) as { data: Record<string, unknown> };
  const ours = await waitFor(
    async () => {
      const e = (await get(`${urlA}/api/v1/cem/exchanges/${sent.id}`)).data;
      return e.state === 'accepted' ? e : undefined;
    },
    'the acceptance reached acme',
    60_000,
  );
  t.match(ours, { answered_by: 'partner:globex', certificates: [{ answer: 'accepted' }] });
  const theirs = (await get(`${urlB}/api/v1/cem/exchanges?direction=inbound`)).data.exchanges as Record<
    string,
    unknown
  >[];
  t.match(theirs[0], { partner: 'acme', state: 'accepted', answered_by: 'developer' });
  const organization = (await get(`${urlA}/api/v1/organizations?q=acme`)).data.organizations as {
    id: number;
  }[];
  const local = (await get(`${urlA}/api/v1/as2/local-profiles/${organization[0]!.id}`)).data;
  t.equal((local.decryption_certificate_ids as number[]).length, 2, 'acme decrypts with both certificates');
});
