// Covers a partner speaking only for itself: interchanges signed by partner mallory (with `openssl cms`, over real
// HTTP to a running as2-receiver) whose X12 ISA06 or EDIFACT UNB sender names partner victim, under three content
// types, are recorded as from mallory, refused, delivered nowhere, answered with a receipt and raised as
// edi_sender_mismatch; a speaks_for list that names victim (checked, audited) lets the same interchange through as
// victim's.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { parseMdn } from '../../actors/as2/index.js';
import {
  messageByAs2Id,
  organization,
  partner,
  postAs2,
  startReceiver,
  storeCertificate,
  syncSigned,
} from '../helpers/as2.js';
import { sql } from '../helpers/database.js';
import { edifactInterchange, purchaseOrder } from '../helpers/edi.js';
import { must, tempDir, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, writeFixture } from '../helpers/smime.js';
import { makeParties } from '../as2/parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;
const dir = await tempDir(t);
const inbox = (name: string) => path.join(dir, name);
/** The documents written under a writer's directory (its own temporary folder left out), by relative path. */
async function written(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && !path.relative(folder, e.parentPath).startsWith('.pier-tmp'))
    .map((e) => path.relative(folder, path.join(e.parentPath, e.name)))
    .sort();
}

// bob is pier's organization; mallory and victim are partners. mallory signs with its own key (alice's stands for victim's).
const bobCert = await storeCertificate(server, fixtures, 'bob');
const malloryCert = await storeCertificate(server, fixtures, 'mallory', false);
const victimCert = await storeCertificate(server, fixtures, 'alice', false);
const url = await startReceiver(server, 'as2in');
const unused = 'http://127.0.0.1:9/as2';
const bob = await organization(server, 'bob', 'BOB', bobCert);
const mallory = await partner(server, 'mallory', 'MALLORY', unused, malloryCert, syncSigned, {
  encryption_algorithm: 'none',
  inbound_encryption: 'optional',
});
const victim = await partner(server, 'victim', 'VICTIM', unused, victimCert, syncSigned);
const ids = (id: string) => ({ interchange_ids: [{ qualifier: '', id }] });
for (const [kind, id, name] of [
  ['organizations', bob, 'BOB'],
  ['partners', mallory, 'MALLORY'],
  ['partners', victim, 'VICTIM'],
] as const) {
  const put = await server.call('PUT', `/api/v1/${kind}/${id}`, { body: ids(name) });
  if (put.status !== 200) throw new Error(`interchange ids of ${name}: ${put.raw}`);
}
for (const from of ['victim', 'mallory']) {
  await must(server, '/plugins/configs?type=file-writer', { name: `${from}-inbox`, directory: inbox(from) });
  await must(server, '/routes', { source_plugin: 'as2in', from, to: 'bob', target_plugin: `${from}-inbox` });
}

let sent = 0;
/** An interchange in an entity of `contentType`, signed by mallory with openssl and posted as AS2-From MALLORY. */
async function sendAsMallory(interchange: string, contentType: string) {
  const id = `<spoof-${++sent}@mallory.example>`;
  writeFixture(
    fixtures,
    'entity.mime',
    Buffer.concat([
      Buffer.from(
        `Content-Type: ${contentType}\r\nContent-Transfer-Encoding: binary\r\n` +
          `Content-Disposition: attachment; filename="spoof-${sent}.edi"\r\n\r\n`,
      ),
      Buffer.from(interchange),
    ]),
  );
  fixtures.openssl(
    'cms -sign -binary -in entity.mime -signer mallory.crt -inkey mallory.key -md sha256 -out signed.eml',
  );
  const request = asHttp(fixtures.read('signed.eml'));
  const answer = await postAs2(url, request.body, {
    'AS2-From': 'MALLORY',
    'AS2-To': 'BOB',
    'Message-ID': id,
    ...request.headers,
  });
  return { answer, stored: await messageByAs2Id(server, id) };
}

const x12 = purchaseOrder(1, 'VICTIM', 'BOB');
const edifact = edifactInterchange({
  sender: ['VICTIM', 'ZZ'],
  receiver: ['BOB', 'ZZ'],
  ref: '1',
  messages: [{ type: 'ORDERS', ref: '1', body: ['BGM+220+PO1+9'] }],
});
const cases = [
  {
    standard: 'X12',
    interchange: x12,
    types: ['application/edi-x12', 'text/plain', 'application/octet-stream'],
  },
  {
    standard: 'EDIFACT',
    interchange: edifact,
    types: ['application/edifact', 'text/plain', 'application/octet-stream'],
  },
];

t.test("an interchange naming another partner's ids is refused as the sender's own", async (t) => {
  for (const c of cases) {
    for (const type of c.types) {
      const label = `${c.standard} as ${type}`;
      const { answer, stored } = await sendAsMallory(c.interchange, type);
      t.equal(answer.status, 200, `${label}: answered`);
      const mdn = parseMdn(answer.body, answer.headers, {
        verificationCerts: [parties.bob.certificate],
      });
      t.equal(mdn.fields.get('disposition'), 'automatic-action/MDN-sent-automatically; processed', label);
      t.equal(stored?.from, 'mallory', `${label}: recorded from the partner AS2 authenticated`);
      t.equal(stored?.to, 'bob', label);
      t.equal(stored?.status, 'Refused', `${label}: refused`);
      t.equal(
        stored?.refusal,
        `Refused: its ${c.standard} envelope names sender ZZ:VICTIM, partner victim, which partner mallory may not send for (not on its speaks_for list)`,
        label,
      );
      t.same(stored?.deliveries, [], `${label}: no delivery`);
      const alerts = await sql(
        server.db.url,
        "select severity, summary, details from alert where code = 'edi_sender_mismatch' and subject_id = $1",
        [stored?.id],
      );
      t.match(
        alerts,
        [{ severity: 'critical', details: { partner: 'mallory', message_id: stored?.id } }],
        `${label}: edi_sender_mismatch raised`,
      );
      const filtered = await server.call('GET', '/api/v1/messages?from=victim');
      t.equal(filtered.body.data.total, 0, `${label}: no message is victim's`);
    }
  }
  t.same(await written(inbox('victim')), [], "nothing reached victim's inbox");
  t.same(await written(inbox('mallory')), [], "nor mallory's: the document is held");
});

t.test('speaks_for names existing partners, is audited, and lets a hub send for them', async (t) => {
  const ghost = await server.call('PUT', `/api/v1/partners/${mallory}`, { body: { speaks_for: ['ghost'] } });
  t.equal(ghost.status, 400);
  t.same(ghost.body.error.details, { speaks_for: 'No partner is named ghost' });
  const itself = await server.call('PUT', `/api/v1/partners/${mallory}`, {
    body: { speaks_for: ['mallory'] },
  });
  t.same(itself.body.error.details, { speaks_for: 'A partner speaks for itself already; leave mallory out' });
  t.same(
    (await server.call('GET', `/api/v1/partners/${mallory}`)).body.data.speaks_for,
    [],
    'nothing stored',
  );

  const allowed = await server.call('PUT', `/api/v1/partners/${mallory}`, {
    body: { speaks_for: ['victim'] },
  });
  t.equal(allowed.status, 200);
  t.same(allowed.body.data.speaks_for, ['victim']);
  const audit = await server.call('GET', '/api/v1/audit?kind=partner&record_name=mallory');
  t.match(audit.body.data.events[0].changes, [{ field: 'speaks_for', old: [], new: ['victim'] }], 'audited');

  const { answer, stored } = await sendAsMallory(x12, 'application/edi-x12');
  t.equal(answer.status, 200);
  t.equal(stored?.from, 'victim', 'a listed partner is taken from the envelope');
  const done = await waitForMessage(server, stored.id, (m) => m.status === 'Delivered', 'delivered');
  t.equal(done.deliveries[0].target, 'victim-inbox');
  t.same(await written(inbox('victim')), ['victim/spoof-7.edi'], 'written on the route from victim');

  // Renamed, the partner stays on the list; removed, it leaves it.
  const renamed = await server.call('PUT', `/api/v1/partners/${victim}`, { body: { name: 'victim-co' } });
  t.equal(renamed.status, 200);
  t.same((await server.call('GET', `/api/v1/partners/${mallory}`)).body.data.speaks_for, ['victim-co']);
  t.equal((await server.call('DELETE', `/api/v1/partners/${victim}`)).status, 204);
  t.same((await server.call('GET', `/api/v1/partners/${mallory}`)).body.data.speaks_for, []);
});
