/**
 * BouncyCastle's S/MIME API as a live AS2 peer: test/fixtures/bc-as2-peer/*.java (As2Peer.java
 * says how it is driven), compiled once per run with Debian's javac against Debian's jars
 * (.ci/run installs them) and run as one JVM per direction that handles every message. Where Java
 * or a jar is missing, the start functions say why instead; `unavailable` makes that a skip
 * here and a failure under CI.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { compiledJava } from './java-classes.js';
import type { Test } from 'tap';

const sources = path.resolve(import.meta.dirname, '../fixtures/bc-as2-peer');
/**
 * jakarta-mail.jar comes before bcprov.jar: bcprov's manifest Class-Path pulls in
 * jakarta-mail-api.jar, whose MimeBodyPart lacks a method jakarta-mail.jar's MimeUtil needs
 * (NoSuchMethodError MimeUtil.cleanContentType) when it is found first.
 */
const jars = ['jakarta-mail', 'jakarta-activation', 'bcprov', 'bcpkix', 'bcutil', 'bcjmail'].map(
  (name) => `/usr/share/java/${name}.jar`,
);

/** One of the peer's key sets: its certificate and key (PEM), and the partner's certificate. */
export interface PeerKeys {
  ownCertificate: string;
  ownKey: string;
  partnerCertificate: string;
}

/** One message for the sending peer; names are those of pier's profile fields. */
export interface SendCommand {
  id: string;
  url: string;
  from: string;
  to: string;
  /** The document's file, its filename on the wire and its Content-Type. */
  file: string;
  name: string;
  type: string;
  /** A signing_algorithm (RSA keys) or none. */
  sign: string;
  /** An encryption_algorithm or none. */
  cipher: string;
  compress: 'none' | 'before-sign' | 'after-sign';
  /** RSA partner: key transport. */
  transport?: 'pkcs1' | 'oaep';
  /** EC partner: the ECDH KDF (sha1 … sha512, cofactor-sha1 … cofactor-sha512). */
  kdf?: string;
  /** Which key set of those the peer was started with (0, the first, by default). */
  keys?: number;
  receipt?: 'signed' | 'unsigned' | 'none';
  /** binary (the default): the document and compressed parts say so; library: BouncyCastle's and Jakarta Mail's choice (base64). */
  encoding?: 'binary' | 'library';
}

/** What the sending peer says of one message and of the receipt it got. */
export interface SendResult {
  id: string;
  messageId: string;
  /** The MIC the peer computed, "<base64>, <algorithm>". */
  mic: string;
  http: number;
  receiptSigned?: boolean;
  /** The receipt's signature verified with pier's certificate, by BouncyCastle. */
  receiptVerified?: boolean;
  receiptSignatureProblem?: string;
  disposition?: string;
  originalMessageId?: string;
  receivedMic?: string;
  /** Verified when signed, for this message, processed, and the MIC the peer computed. */
  ok: boolean;
  problems?: string[];
  /** The peer failed before it could judge (an exception, on one line). */
  error?: string;
}

/** What the receiving peer says of one message it got from pier. */
export interface Received {
  messageId: string;
  from: string;
  to: string;
  contentType: string;
  /** Content encryption and key transport (or key agreement) OIDs. */
  encryption?: string;
  keyTransport?: string;
  /** With key agreement: the key wrap OID. */
  keyWrap?: string;
  /** Signature digest and signature algorithm OIDs. */
  digest?: string;
  signature?: string;
  /** Outermost first: encrypted, signed, compressed. */
  layers?: string[];
  /** The document as written to the peer's directory. */
  file?: string;
  filename?: string;
  mic?: string;
  receiptSigned?: boolean;
  disposition?: string;
  /** The peer refused the message: modifier and reason. */
  refused?: string;
  error?: string;
}

export interface BcSender {
  send(command: SendCommand): Promise<SendResult>;
}

export interface BcReceiver {
  /** http://127.0.0.1:<port>/as2 */
  url: string;
  /** The peer's report on a message, once it has answered it; rejects after `timeoutMs`. */
  received(messageId: string, timeoutMs?: number): Promise<Received>;
}

/** Compiles the peer into a temporary directory: its classpath, or why it cannot run here. */
function compile(): { classpath: string } | string {
  const missing = jars.filter((jar) => !existsSync(jar));
  if (missing.length > 0) return `jars missing: ${missing.join(', ')}`;
  for (const command of ['javac', 'java'])
    if (spawnSync(command, ['-version'], { stdio: 'ignore' }).status !== 0)
      return `${command} is not installed`;
  const files = readdirSync(sources)
    .filter((name) => name.endsWith('.java'))
    .map((name) => path.join(sources, name));
  const classes = compiledJava(files, jars, ['-encoding', 'UTF-8']);
  return { classpath: `${jars.join(':')}:${classes}` };
}

/** Starts `java As2Peer <args>`; ended by closing its stdin when the test ends. */
function run(t: Test, classpath: string, args: string[]) {
  const child = spawn('java', ['-cp', classpath, 'As2Peer', ...args], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.teardown(async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  });
  const lines = createInterface({ input: child.stdout });
  const died = exited.then((code) => {
    throw new Error(`the BouncyCastle peer exited (${code}): ${stderr.slice(-2000)}`);
  });
  died.catch(() => {});
  return { child, lines, died };
}

const keyArguments = (keys: PeerKeys[]) =>
  keys.flatMap((set) => [set.ownCertificate, set.ownKey, set.partnerCertificate]);

/** The sending peer with these key sets, or why it cannot run here. */
export function startBcSender(t: Test, keys: PeerKeys[]): BcSender | string {
  const compiled = compile();
  if (typeof compiled === 'string') return compiled;
  const { child, lines, died } = run(t, compiled.classpath, ['send', ...keyArguments(keys)]);
  const waiting = new Map<string, (result: SendResult) => void>();
  lines.on('line', (line) => {
    if (!line.startsWith('RESULT ')) return;
    const result = JSON.parse(line.slice('RESULT '.length)) as SendResult;
    waiting.get(result.id)?.(result);
    waiting.delete(result.id);
  });
  return {
    send(command) {
      const answered = new Promise<SendResult>((resolve) => waiting.set(command.id, resolve));
      writeCommand(child, command);
      return Promise.race([answered, died]);
    },
  };
}

function writeCommand(child: ChildProcessWithoutNullStreams, command: SendCommand): void {
  const fields = Object.entries(command).map(([name, value]) => {
    if (/\s/.test(String(value))) throw new Error(`${name} holds a blank, which the peer's commands cannot`);
    return `${name}=${value}`;
  });
  child.stdin.write(`${fields.join(' ')}\n`);
}

/**
 * The receiving peer with these key sets, writing documents under `directory`; or why it
 * cannot run here. It decrypts with whichever set the message is encrypted to, verifies with
 * the partner certificate the signature names, and answers with the set that did either.
 */
export async function startBcReceiver(
  t: Test,
  keys: PeerKeys[],
  directory: string,
): Promise<BcReceiver | string> {
  const compiled = compile();
  if (typeof compiled === 'string') return compiled;
  const { lines, died } = run(t, compiled.classpath, ['receive', directory, ...keyArguments(keys)]);
  const reports = new Map<string, Received>();
  const waiting = new Map<string, (report: Received) => void>();
  let listening: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (listening = resolve));
  lines.on('line', (line) => {
    if (line.startsWith('LISTENING ')) listening((JSON.parse(line.slice(10)) as { port: number }).port);
    if (!line.startsWith('RECEIVED ')) return;
    const report = JSON.parse(line.slice('RECEIVED '.length)) as Received;
    reports.set(report.messageId, report);
    waiting.get(report.messageId)?.(report);
  });
  const url = `http://127.0.0.1:${await Promise.race([port, died])}/as2`;
  return {
    url,
    received(messageId, timeoutMs = 10_000) {
      const known = reports.get(messageId);
      if (known) return Promise.resolve(known);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the peer told nothing of ${messageId}`)), timeoutMs);
      });
      const told = new Promise<Received>((resolve) => waiting.set(messageId, resolve));
      return Promise.race([told, died, late]).finally(() => clearTimeout(timer));
    },
  };
}

/** Without Java or the jars: skipped here, a failure under CI (whose .ci/run installs them). */
export function unavailable(t: Test, why: string): void {
  if (process.env.CI) t.fail(`the BouncyCastle AS2 peer cannot run: ${why}`);
  else void t.skip(`the BouncyCastle AS2 peer cannot run here (${why})`, () => {});
}
