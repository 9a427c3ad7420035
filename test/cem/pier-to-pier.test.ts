// Covers certificate exchange (CEM) between pier and pier over real HTTP on loopback, one server playing both sides: a request sent through the API arrives over the AS2 receiver, is recognised by its content type (not routed), stores the partner's new certificate beside the current one and waits for an answer; an operator accepts or rejects it, a partner's policy answers by itself, the response travels back and is recorded on the sending side; the switch on the respond-by date happens once, from a schedule tick the test triggers; a partner that does not answer raises cem_overdue once.
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { agreement, startReceiver, startSender, storeCertificate, syncSigned } from '../helpers/as2.js';
import { sql } from '../helpers/database.js';
import { waitForMessage, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { runtimeOf } from '../../api/context.js';

const server = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
for (const n of [1, 2, 3, 4]) f.selfSigned(`next${n}`, `/O=pier, next ${n}/CN=next${n}.pier.example`, 730);
const current = await storeCertificate(server, f, 'pier');
const next: number[] = [];
for (const n of [1, 2, 3, 4]) next.push(await storeCertificate(server, f, `next${n}`));
const url = await startReceiver(server);
await startSender(server, 'out');
// Organization sx sends to partner rx at url; there organization rox knows it as partner spx.
const { organization: sx, partner: rx } = await agreement(server, 'x', url, current, syncSigned);
const spx = (await server.call('GET', '/api/v1/partners?q=spx')).body.data.partners[0].id as number;
const cem = runtimeOf(server.ctx).cem;
const day = 24 * 3600 * 1000;
/** A message and its receipt over loopback; generous, as a loaded 2-core machine is slow. */
const roundTripMs = 30_000;

async function exchange(id: number) {
  const answer = await server.call('GET', `/api/v1/cem/exchanges/${id}`);
  t.equal(answer.status, 200);
  return answer.body.data;
}

/** The exchange the partner side made of our request `requestId`, once it has arrived. */
async function arrived(requestId: string) {
  return waitFor(
    async () => {
      const list = await server.call('GET', '/api/v1/cem/exchanges?direction=inbound&partner=spx&limit=100');
      return list.body.data.exchanges.find((e: { request_id: string }) => e.request_id === requestId);
    },
    `the request ${requestId} received`,
    roundTripMs,
  );
}

async function profileOf(partnerId: number) {
  return (await server.call('GET', `/api/v1/as2/remote-profiles/${partnerId}`)).body.data;
}

async function request(certificate: number, respondBy: Date, usages = ['signature', 'encryption']) {
  const made = await server.call('POST', '/api/v1/cem/exchanges', {
    body: {
      partner_id: rx,
      organization: 'sx',
      certificate_id: certificate,
      usages,
      respond_by: respondBy.toISOString(),
    },
  });
  t.equal(made.status, 201, made.raw);
  return made.body.data;
}

t.test(
  'an operator accepts; the response comes back; the switch happens once on the respond-by date',
  async (t) => {
    const respondBy = new Date(Date.now() + 2 * day);
    const sent = await request(next[0]!, respondBy);
    t.match(sent, {
      direction: 'outbound',
      state: 'pending',
      partner: 'rx',
      organization: 'sx',
      respond_by: respondBy.toISOString(),
      certificates: [{ certificate_id: next[0], usages: ['signature', 'encryption'], answer: 'pending' }],
    });
    // We can decrypt with the new certificate as soon as the partner may use it.
    const local = (await server.call('GET', `/api/v1/as2/local-profiles/${sx}`)).body.data;
    t.same(local.decryption_certificate_ids, [current, next[0]], 'our organization decrypts with both');
    const delivered = await waitForMessage(
      server,
      (await exchange(sent.id)).request_message_id,
      (m) => m.status === 'Delivered' || m.status === 'Error',
      'the request delivered',
      roundTripMs,
    );
    t.equal(delivered.status, 'Delivered', JSON.stringify(delivered.history));
    t.equal(
      delivered.protocols.as2.headers['Content-Type'].split(';')[0],
      'application/pkcs7-mime',
      'sent as AS2',
    );

    const received = await arrived(sent.request_id);
    t.match(received, {
      direction: 'inbound',
      state: 'pending',
      partner: 'spx',
      organization: 'rox',
      respond_by: respondBy.toISOString(),
      answered_at: null,
      certificates: [{ certificate_id: next[0], usages: ['signature', 'encryption'], answer: 'pending' }],
    });
    const inbound = (await server.call('GET', `/api/v1/messages/${received.request_message_id}`)).body
      .data as Message;
    t.equal(inbound.status, 'NotRouted', 'a CEM message is not routed as a business document');
    t.equal(inbound.deliveries.length, 0);
    t.match(inbound.history[0].text, `Certificate exchange request ${sent.request_id} from spx`);
    let theirs = await profileOf(spx);
    t.same(
      theirs.signature_certificate_ids,
      [current, next[0]],
      'the new certificate sits beside the current one',
    );
    t.equal(theirs.partner_certificate_id, current, 'messages are still encrypted for the current one');

    const answered = await server.call('POST', `/api/v1/cem/exchanges/${received.id}/answer`, {
      body: { decision: 'accept' },
    });
    t.equal(answered.status, 200, answered.raw);
    t.match(answered.body.data, {
      state: 'accepted',
      answered_by: 'sa:tester',
      certificates: [{ answer: 'accepted' }],
    });
    t.ok(answered.body.data.response_message_id, 'the response message is recorded');
    const ours = await waitFor(
      async () => {
        const e = await exchange(sent.id);
        return e.state === 'accepted' ? e : undefined;
      },
      'the response recorded on our side',
      roundTripMs,
    );
    t.match(ours, { answered_by: 'partner:rx', certificates: [{ answer: 'accepted', reason: null }] });
    const audit = await server.call('GET', `/api/v1/audit?kind=cem-exchange&record_id=${received.id}`);
    t.match(audit.body.data.events, [
      { actor: 'sa:tester', action: 'update', changes: [{ field: 'certificates', new: /: accepted$/ }] },
    ]);
    const again = await server.call('POST', `/api/v1/cem/exchanges/${received.id}/answer`, {
      body: { decision: 'reject' },
    });
    t.match(again, {
      status: 400,
      body: { error: { code: 'INVALID_INPUT', details: { decision: 'This request was answered already' } } },
    });

    t.same(
      await cem.tick(new Date(respondBy.getTime() - 1000)),
      { switched: 0, overdue: 0 },
      'nothing before the date',
    );
    // Two ticks at once, as two processes of a cluster run them: the switch happens in one.
    const at = new Date(respondBy.getTime() + 1000);
    const ticks = await Promise.all([cem.tick(at), cem.tick(at)]);
    t.same(
      ticks.map((r) => r.switched).sort(),
      [0, 2],
      'both sides switched on the date, by one of the two ticks',
    );
    t.same(
      await cem.tick(new Date(respondBy.getTime() + 60_000)),
      { switched: 0, overdue: 0 },
      'and only once',
    );
    theirs = await profileOf(spx);
    t.same(
      theirs.signature_certificate_ids,
      [next[0], current],
      'the new certificate verifies their signatures first; the old one stays for messages under way',
    );
    t.equal(theirs.partner_certificate_id, next[0], 'messages are encrypted for the new certificate');
    const signing = (await server.call('GET', `/api/v1/as2/local-profiles/${sx}`)).body.data
      .signing_certificate_id;
    t.equal(signing, next[0], 'our organization signs with the new certificate');
    t.match(await exchange(sent.id), { state: 'switched' });
    t.match(await exchange(received.id), {
      state: 'switched',
      switched_at: new Date(respondBy.getTime() + 1000).toISOString(),
    });
  },
);

t.test(
  'an operator rejects; the certificate leaves the profile and the reason reaches the partner',
  async (t) => {
    const before = (await profileOf(spx)).signature_certificate_ids;
    const sent = await request(next[1]!, new Date(Date.now() + 3 * day), ['signature']);
    const received = await arrived(sent.request_id);
    t.same((await profileOf(spx)).signature_certificate_ids, [...before, next[1]]);
    const answered = await server.call('POST', `/api/v1/cem/exchanges/${received.id}/answer`, {
      body: { decision: 'reject', reason: 'Key usage lacks digitalSignature' },
    });
    t.equal(answered.status, 200, answered.raw);
    t.match(answered.body.data, {
      state: 'rejected',
      certificates: [{ answer: 'rejected', reason: 'Key usage lacks digitalSignature' }],
    });
    t.same((await profileOf(spx)).signature_certificate_ids, before, 'the rejected certificate is taken out');
    const ours = await waitFor(
      async () => {
        const e = await exchange(sent.id);
        return e.state === 'rejected' ? e : undefined;
      },
      'the rejection recorded on our side',
      roundTripMs,
    );
    t.match(ours.certificates, [{ answer: 'rejected', reason: 'Key usage lacks digitalSignature' }]);
    t.same(
      await cem.tick(new Date(Date.now() + 10 * day)),
      { switched: 0, overdue: 0 },
      'a rejected request never switches',
    );
  },
);

t.test("a partner's policy answers at once", async (t) => {
  const put = await server.call('PUT', `/api/v1/cem/policies/${spx}`, { body: { policy: 'accept' } });
  t.same(put.body.data, { partner_id: spx, policy: 'accept' });
  t.teardown(() => server.call('PUT', `/api/v1/cem/policies/${spx}`, { body: { policy: 'manual' } }));
  const respondBy = new Date(Date.now() + 4 * day);
  const sent = await request(next[2]!, respondBy, ['tls']);
  const received = await waitFor(
    async () => {
      const e = await arrived(sent.request_id);
      return e.state === 'accepted' ? e : undefined;
    },
    'answered by the policy',
    roundTripMs,
  );
  t.equal(received.answered_by, 'policy:accept');
  t.ok(
    (await profileOf(spx)).tls_trusted_certificate_ids.includes(next[2]),
    'trusted for TLS beside the others',
  );
  await waitFor(
    async () => ((await exchange(sent.id)).state === 'accepted' ? true : undefined),
    'accepted on our side',
    roundTripMs,
  );
  t.same(await cem.tick(new Date(respondBy.getTime() + 1000)), { switched: 2, overdue: 0 });
  t.ok(
    (await profileOf(spx)).tls_trusted_certificate_ids.includes(next[2]),
    'still trusted after the switch',
  );
  const bad = await server.call('PUT', `/api/v1/cem/policies/${spx}`, { body: { policy: 'sometimes' } });
  t.match(bad, { status: 400, body: { error: { code: 'INVALID_INPUT', details: { policy: /manual/ } } } });
  const missing = await server.call('GET', '/api/v1/cem/policies/99999');
  t.match(missing, { status: 404, body: { error: { code: 'NOT_FOUND' } } });
});

t.test('a partner that does not answer by the respond-by date raises cem_overdue once', async (t) => {
  const respondBy = new Date(Date.now() + 5 * day);
  const sent = await request(next[3]!, respondBy);
  await arrived(sent.request_id); // the partner side keeps it waiting for an operator
  t.same(await cem.tick(new Date(respondBy.getTime() + 1000)), { switched: 0, overdue: 1 });
  t.same(await cem.tick(new Date(respondBy.getTime() + 120_000)), { switched: 0, overdue: 0 }, 'once');
  const alerts = await sql<{ code: string; summary: string; link: string; subject_name: string }>(
    server.db.url,
    `select code, summary, link, subject_name from alert where code = 'cem_overdue'`,
  );
  t.equal(alerts.length, 1);
  t.match(alerts[0], {
    subject_name: 'rx',
    summary: `Partner rx has not answered certificate exchange ${sent.request_id}, due ${respondBy.toISOString()}`,
    link: `/ui/cem/${sent.id}`,
  });
  const list = await server.call('GET', '/api/v1/cem/exchanges?direction=outbound&state=overdue');
  // The state is read at the real time; the exchange is overdue only by the tick's clock.
  t.equal(list.status, 200);
  t.match(await exchange(sent.id), { state: 'pending' });
});

t.test('requests pier refuses to send, with nothing stored', async (t) => {
  const count = async () =>
    (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from cem_exchange'))[0]!.n;
  const before = await count();
  const refused = async (body: Record<string, unknown>, details: Record<string, unknown>, status = 400) => {
    const answer = await server.call('POST', '/api/v1/cem/exchanges', { body: { organization, ...body } });
    t.match(
      answer,
      {
        status,
        body: { error: status === 404 ? { code: 'NOT_FOUND', message: 'Partner not found' } : { details } },
      },
      JSON.stringify(body),
    );
  };
  const future = new Date(Date.now() + day).toISOString();
  const organization = 'sx';
  await refused(
    { partner_id: rx, certificate_id: next[0], respond_by: new Date(Date.now() - 1000).toISOString() },
    { respond_by: 'Must be in the future: the partner needs time to answer' },
  );
  await refused(
    { partner_id: rx, certificate_id: next[0], respond_by: 'tomorrow' },
    { respond_by: 'Must be an RFC 3339 date and time' },
  );
  await refused(
    { partner_id: rx, certificate_id: next[0], respond_by: future, usages: ['signing'] },
    { usages: /signature/ },
  );
  await refused(
    { organization, partner_id: rx, certificate_id: next[0], respond_by: future, usages: [] },
    { usages: /1/ },
  );
  const withoutKey = (await server.call('POST', '/api/v1/cem/exchanges', { body: {} })).status;
  t.equal(withoutKey, 400);
  await refused({ organization, partner_id: 99999, certificate_id: next[0], respond_by: future }, {}, 404);
  await refused(
    { partner_id: rx, certificate_id: 99999, respond_by: future },
    { certificate_id: 'No certificate has id 99999' },
  );
  await refused(
    { partner_id: rx, certificate_id: next[0], respond_by: future, sender: 'nobody' },
    { sender: 'No AS2 sender is named nobody' },
  );
  t.equal(await count(), before, 'no exchange stored');
  const unknown = await server.call('POST', '/api/v1/cem/exchanges/99999/answer', {
    body: { decision: 'accept' },
  });
  t.match(unknown, {
    status: 404,
    body: { error: { code: 'NOT_FOUND', message: 'Certificate exchange not found' } },
  });
  const ours = (await server.call('GET', '/api/v1/cem/exchanges?direction=outbound&limit=1')).body.data
    .exchanges[0];
  const notTheirs = await server.call('POST', `/api/v1/cem/exchanges/${ours.id}/answer`, {
    body: { decision: 'accept' },
  });
  t.match(notTheirs, { status: 400, body: { error: { details: { _form: /partner's request/ } } } });
});
