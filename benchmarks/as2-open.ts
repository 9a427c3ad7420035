/**
 * The receiver's opening work alone: the same requests as `as2-receive`,
 * opened by the receiver's pool (`MessageOpener`: decrypt, verify, inflate, MIC, signed receipt)
 * with no HTTP, no PostgreSQL and no load generator sharing the cores. Run it with `--cpus 0` and
 * `--cpus 0,1` to see how the opening scales with the cores it gets; `--in-thread` opens on this
 * thread instead, for what the pool itself costs.
 * Options: --messages <n> timed (default 3000), --warm-up <n> opened first (default 4000: each
 * pool thread compiles its own code, benchmarks/history/2026-11-23-warm-up-and-stage-bytes-as-one-binary-parameter.md), --in-flight <n> (default 8), --cpus
 * <list> (taskset this process, every thread), --in-thread, --size <bytes> (default 10240),
 * --profile full|signed|encrypted|plain (default full).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openMessage, type OpenTask } from '../actors/as2-receiver/open-message.js';
import { MessageOpener } from '../actors/as2-receiver/open-pool.js';
import { LocalPayloadStore } from '../storage/payloads/local-store.js';
import type { As2InboundContext } from '../protocol/as2-protocol.js';
import {
  as2RequestHeaders,
  benchKeyPair,
  buildAs2Requests,
  requestProfileOf,
  type BuiltRequest,
} from './lib/as2-requests.js';
import { cpuMsOf, opensslRsaSignsPerSecond } from './lib/cpu.js';
import { benchWorkDir } from './lib/work-dir.js';
import { limits } from '../limits/limits.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    'warm-up': { type: 'string' },
    'in-flight': { type: 'string' },
    cpus: { type: 'string' },
    'in-thread': { type: 'boolean' },
    size: { type: 'string' },
    profile: { type: 'string' },
  },
});
const timed = Number(values.messages ?? 3000);
const warmUp = Number(values['warm-up'] ?? 4000);
const inFlight = Number(values['in-flight'] ?? 8);
const size = Number(values.size ?? 10240);
const profileName = values.profile ?? 'full';
const profile = requestProfileOf(profileName);
const log = (text: string) => process.stderr.write(`${text}\n`);

// Every thread started from here on (the pool's) inherits the placement.
if (values.cpus)
  execFileSync('taskset', ['-a', '-p', '-c', values.cpus, String(process.pid)], { stdio: 'ignore' });

const work = benchWorkDir('pier-bench-as2-open-');
const keys = benchKeyPair(work.path);
// Opened over and over in turn: up to 1,000 different ones, within 256 MiB.
const distinct = Math.max(10, Math.min(1000, Math.floor((256 * 1024 * 1024) / size)));
log(`building ${distinct} ${profileName} messages of ${size} bytes…`);
const requests = buildAs2Requests(distinct, size, profile, keys);
const material = { certificate_pem: keys.certificatePem, private_key_pem: keys.keyPem };
const context: As2InboundContext = {
  found: true,
  organization: 'bob',
  partner: 'alice',
  decryption: [material],
  signing: material,
  verification: [keys.certificatePem],
  partner_certificates: [keys.certificatePem],
  require_signed: profile.sign,
  require_encrypted: profile.encrypt,
  require_modern: true,
  as2bis: false,
  max_message_bytes: null,
};
const store = new LocalPayloadStore(path.join(work.path, 'store'));
const opener = values['in-thread'] ? null : new MessageOpener(store, 64 * 1024 * 1024);

function taskOf(request: BuiltRequest, n: number): OpenTask {
  return {
    messageId: randomUUID(),
    // The pool takes a large body over (it is moved, not copied): each task gets its own.
    body: request.body.length >= limits.largeBodyFromBytes ? Buffer.from(request.body) : request.body,
    receivedBytes: request.body.length,
    headers: { ...as2RequestHeaders, ...request.headers },
    context,
    maxPayloadBytes: 1024 * 1024 * 1024,
    as2From: 'ALICE',
    as2To: 'BOB',
    originalMessageId: `<bench-${n}@alice.example>`,
    receipt: { identification: 'BOB', options: as2RequestHeaders['Disposition-Notification-Options'] },
  };
}

let opened = 0;
/** Opens `count` messages, `inFlight` at a time; each must come out processed with its MIC. */
async function openMany(count: number): Promise<void> {
  let next = 0;
  const one = async () => {
    while (next < count) {
      const n = opened + next++;
      const request = requests[n % requests.length]!;
      const task = taskOf(request, n);
      const result = opener ? await opener.open(task) : await openMessage(task, store);
      // Opened on this thread, a message's receipt is made when asked for (as receive.ts does).
      if ('finishReceipt' in result) await result.finishReceipt();
      if (result.refusal || result.description.mic !== request.mic)
        throw new Error(
          `message ${n}: ${result.refusal?.disposition ?? `MIC ${String(result.description.mic)}`}`,
        );
      // The event loop turns between messages, as between a receiver's requests: opened on this
      // thread, a message's awaits settle at once, and the pool's answers would never be read.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, one));
  opened += count;
}

const rsaBefore = opensslRsaSignsPerSecond();
log(`openssl speed rsa2048: ${rsaBefore} sign/s; warming up with ${warmUp} messages…`);
await openMany(warmUp);
const cpuBefore = cpuMsOf(process.pid);
const startedAt = performance.now();
await openMany(timed);
const seconds = (performance.now() - startedAt) / 1000;
const cpuMs = cpuMsOf(process.pid) - cpuBefore;
await opener?.close();
const rsaAfter = opensslRsaSignsPerSecond();
work.finish();

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
console.log(
  JSON.stringify({
    benchmark: 'as2-open',
    profile: profileName,
    size_bytes: size,
    opened_on: opener ? 'pool' : 'this thread',
    cpus: values.cpus ?? 'all',
    in_flight: inFlight,
    messages: timed,
    msg_per_s: round(timed / seconds, 1),
    cpu_ms_per_msg: round(cpuMs / timed),
    cores_used: round(cpuMs / 1000 / seconds),
    openssl_rsa2048_sign_per_s: { before: rsaBefore, after: rsaAfter },
  }),
);
