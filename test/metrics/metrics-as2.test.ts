// Covers GET /metrics after an AS2 exchange over real HTTP: a message pier sends to its own receiver with a signed receipt, and messages a partner posts that are processed or refused (tampered: MIC; encrypted for another certificate: decryption; unknown AS2-From: counted as partner "unknown"), counted by partner and disposition, with the security failures, the receipts sent and received, and the acceptances by source.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import t from 'tap';
import { packOutgoing } from '../../actors/as2/index.js';
import { agreement, pierToItself, postAs2, startSender, syncSigned } from '../helpers/as2.js';
import { sendByHand } from '../helpers/flow.js';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrapeUntil } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const { f, cert, url } = await pierToItself(t, server, (f) =>
  f.selfSigned('other', '/O=other/CN=other.example'),
);
await startSender(server, 'out');
await agreement(server, 'x', url, cert, syncSigned);
const pierCert = new X509Certificate(f.read('pier.crt'));
const pierKey = createPrivateKey(f.read('pier.key'));

let counter = 0;
function message(encryptTo: X509Certificate | null = pierCert) {
  const packed = packOutgoing(Buffer.from('ISA*00*TEST~\n'), {
    filename: 'order.x12',
    sign: { algorithm: 'sha-256', certificate: pierCert, privateKey: pierKey },
    encrypt: encryptTo ? { algorithm: 'aes256-cbc', certificate: encryptTo } : null,
  });
  return { packed, id: `<metrics-${++counter}@test>` };
}

t.test('an exchange and three refusals, counted by partner and disposition', async (t) => {
  // pier → pier: the sender `out` sends to partner rx, whose URL is this pier's receiver.
  const fields = { from: 'sx', to: 'rx', target: 'out' };
  const file = { name: 'a.edi', content: 'UNA' };
  const sent = await sendByHand(server, fields, file, (m) => m.status === 'Delivered', 'sent');
  t.equal(sent.status, 'Delivered');

  const tampered = message(null);
  const evil = Buffer.from(
    tampered.packed.body.toString('latin1').replace('ISA*00*TEST', 'ISA*00*EVIL'),
    'latin1',
  );
  t.equal((await postAs2(url, evil, { ...tampered.packed.headers, 'Message-ID': tampered.id })).status, 200);
  const foreign = message(new X509Certificate(f.read('other.crt')));
  const r2 = await postAs2(url, foreign.packed.body, { ...foreign.packed.headers, 'Message-ID': foreign.id });
  t.equal(r2.status, 200);
  const stranger = message();
  const r3 = await postAs2(url, stranger.packed.body, {
    ...stranger.packed.headers,
    'Message-ID': stranger.id,
    'AS2-From': 'Nobody',
  });
  t.equal(r3.status, 200);

  const m = await scrapeUntil(
    server,
    (m) =>
      valueOf(m, 'pier_as2_received_total', { partner: 'unknown' }) === 1 &&
      valueOf(m, 'pier_deliveries_finished_total', { target: 'out', outcome: 'delivered' }) === 1,
    'the AS2 counts',
  );
  const received = (disposition: string, partner = 'spx') =>
    valueOf(m, 'pier_as2_received_total', { partner, disposition });
  t.equal(received('processed'), 1, 'the message pier sent itself');
  t.equal(received('processed/error: integrity-check-failed'), 1);
  t.equal(received('processed/error: decryption-failed'), 1);
  t.equal(received('processed/error: unknown-trading-partner', 'unknown'), 1, 'AS2-From Nobody is no label');
  t.notOk(
    m.get('pier_as2_received_total')!.samples.some((s) => /nobody/i.test(s.labels.partner ?? '')),
    'no series named after the stranger',
  );
  const failed = (check: string) => valueOf(m, 'pier_as2_security_failures_total', { partner: 'spx', check });
  t.equal(failed('mic'), 1);
  t.equal(failed('decryption'), 1);
  t.equal(failed('signature'), 0);
  t.equal(valueOf(m, 'pier_as2_mdns_total', { direction: 'sent', outcome: 'processed' }), 1);
  t.equal(valueOf(m, 'pier_as2_mdns_total', { direction: 'sent', outcome: 'error' }), 3);
  t.equal(valueOf(m, 'pier_as2_mdns_total', { direction: 'received', outcome: 'processed' }), 1);
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'accepted' }), 1);
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'refused' }), 3);
  t.equal(valueOf(m, 'pier_delivery_attempts_total', { target: 'out', outcome: 'ok' }), 1);
  t.equal(valueOf(m, 'pier_instance_state', { type: 'as2-receiver', name: 'in', state: 'running' }), 1);
  t.equal(valueOf(m, 'pier_instance_state', { type: 'as2-sender', name: 'out', state: 'running' }), 1);
});
