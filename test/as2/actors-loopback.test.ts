// Covers pier → pier over real HTTP on loopback: the as2-sender packs per the partner profile, the as2-receiver unpacks, stores the stages and answers with the receipt; the sender judges it. Matrix: the full sign × encrypt product (5 × 7 = 35 combinations) with compression {off, before-sign, after-sign} and MDN {none, sync unsigned, sync signed, async signed} cycling through it, so every value of every axis appears (the whole 420-combination product is left out for time). One server plays both sides, started once; the combinations run concurrently.
import t from 'tap';
import { agreement, startSender, type Profile, pierToItself } from '../helpers/as2.js';
import { upload, waitForMessage, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const { cert, url } = await pierToItself(t, server);
await startSender(server, 'out');
await startSender(server, 'out-after', { compression_order: 'after-sign' });

const signs = ['none', 'sha1', 'sha256', 'sha384', 'sha512'];
const encrypts = ['none', '3des', 'aes128-cbc', 'aes192-cbc', 'aes256-cbc', 'aes128-gcm', 'aes256-gcm'];
const compressions = ['off', 'before-sign', 'after-sign'] as const;
const mdns = [
  { mdn_mode: 'none', mdn_signed: false },
  { mdn_mode: 'sync', mdn_signed: false },
  { mdn_mode: 'sync', mdn_signed: true },
  { mdn_mode: 'async', mdn_signed: true },
] as const;

const combos: { tag: string; profile: Profile; compress: (typeof compressions)[number] }[] = [];
let n = 0;
for (const sign of signs) {
  for (const encrypt of encrypts) {
    const compress = compressions[n % 3]!;
    const mdn = mdns[n % 4]!;
    combos.push({
      tag: String(n),
      compress,
      profile: {
        signing_algorithm: sign,
        encryption_algorithm: encrypt,
        compression: compress !== 'off',
        ...mdn,
      },
    });
    n++;
  }
}
for (const c of combos) await agreement(server, c.tag, url, cert, c.profile);

/** All combinations run at once: on a loaded 2-core machine the last may take a minute. */
const allCombinationsMs = 90_000;

async function inboundFor(tag: string): Promise<Message> {
  return waitFor(
    async () => {
      const list = await server.call('GET', `/api/v1/messages?from=sp${tag}`);
      return (list.body.data.messages as Message[])[0];
    },
    `the message received for ${tag}`,
    allCombinationsMs,
  );
}

t.test('every combination is delivered and received with matching MICs', async (t) => {
  await Promise.all(
    combos.map(async (c) => {
      const name = `${c.profile.signing_algorithm}-${c.profile.encryption_algorithm}-${c.compress}-${c.profile.mdn_mode}${c.profile.mdn_signed ? '-signed' : ''}`;
      const content = `UNA:+.? '\nUNB+UNOC:3+${name}'\n`.repeat(20);
      const made = await upload(
        server,
        { from: `s${c.tag}`, to: `r${c.tag}`, target: c.compress === 'after-sign' ? 'out-after' : 'out' },
        { name: `${name}.edi`, content },
      );
      t.equal(made.status, 201, `${name}: uploaded`);
      const sent = await waitForMessage(
        server,
        made.body.data.id,
        (m) => m.status === 'Delivered' || m.status === 'Error',
        `${name} delivered`,
        allCombinationsMs,
      );
      t.equal(sent.status, 'Delivered', `${name}: ${sent.deliveries[0]?.last_error ?? ''}`);
      const received = await inboundFor(c.tag);
      const stored = await server.call('GET', `/api/v1/messages/${received.id}/payload?stage=unpacked`);
      t.equal(stored.raw, content, `${name}: the document arrived intact`);
      t.equal(received.file_name, `${name}.edi`, `${name}: filename preserved`);
      const as2 = received.protocols.as2;
      t.equal(as2.mic, sent.protocols.as2.mic, `${name}: both sides computed the same MIC`);
      t.equal(as2.signed, c.profile.signing_algorithm !== 'none', `${name}: signed`);
      t.equal(as2.encrypted, c.profile.encryption_algorithm !== 'none', `${name}: encrypted`);
      t.equal(as2.compressed, c.compress !== 'off', `${name}: compressed`);
      if (c.profile.mdn_mode !== 'none') {
        t.equal(sent.protocols.as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
        t.equal(sent.protocols.as2.mdn.signed, c.profile.mdn_signed, `${name}: receipt signed as asked`);
        t.ok(
          sent.history.some((h: Message) => h.kind === 'mdn_received'),
          `${name}: mdn_received`,
        );
        // The receipt as it travelled, downloadable from the sent message (sync and async alike).
        const receipt = await server.call('GET', `/api/v1/messages/${sent.id}/payload?stage=receipt`);
        t.equal(receipt.status, 200, `${name}: receipt stored`);
        t.match(receipt.raw, /disposition-notification/i, `${name}: the receipt is the MDN`);
        t.match(receipt.headers['content-disposition'], `${sent.id}-receipt.eml`);
      }
    }),
  );
});
