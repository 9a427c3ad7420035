// Covers docs/partner-setup.md's "Renewing certificates with CEM" between two `pier serve` processes (acme and globex, set up by the document's own blocks): acme sends its new certificate with the first CEM block, globex's second block waits for the request and accepts it, and the acceptance travels back to acme, whose organization now decrypts with both certificates.
import t from 'tap';
import {
  blocksOf,
  exchangeKeys,
  partnerSetup,
  runBlock,
  sectionOf,
  twoSides,
} from '../helpers/document-pier.js';
import { waitFor } from '../helpers/wait.js';

const setup = blocksOf(partnerSetup, 'sh');
const cem = blocksOf(sectionOf(partnerSetup, 'Renewing certificates with CEM'), 'bash');
t.equal(cem.length, 2, 'the CEM section has its two blocks');

t.test('acme sends its new certificate; globex accepts it; acme hears so', async (t) => {
  const [a, b] = await twoSides(t);
  const [urlA, urlB] = [a.url, b.url];
  await exchangeKeys(t, setup[0]!, a, b);

  // globex configures itself, then waits for the request with the second CEM block.
  const globex = runBlock(`${setup[1]!}\n${cem[1]!}`, b, a);
  await waitFor(
    () => (globex.out().includes('Give your partner') ? true : undefined),
    'globex configured',
    120_000,
  );
  const acme = runBlock(`${setup[1]!}\n${cem[0]!}`, a, b);
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
