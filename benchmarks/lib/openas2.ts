/**
 * OpenAS2 (4.9.0, built from its sources) as the server pier is compared with, started in a JVM
 * of its own on loopback. No OpenAS2 code or configuration is in this repository: `OPENAS2_HOME`
 * (or the benchmark's `--openas2` argument) names a directory holding its compiled classes under
 * `classes/` and its shipped configuration (`Server/src/config` of its sources) under `config/`;
 * this module copies that configuration into the run's working directory and changes there only
 * what a benchmark must: loopback addresses, ports, database tracking off, the partnerships and
 * a keystore made from the benchmark's own key pair. The libraries are Debian's jars
 * (`OPENAS2_CLASSPATH` overrides the list), jakarta-mail before bcprov: bcprov's manifest pulls in
 * jakarta-mail-api, whose MimeBodyPart lacks a method OpenAS2 calls.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { untilListening } from '../../cli/bench/listening.js';

const debianJars = [
  'jakarta-mail',
  'jakarta-activation',
  'bcprov',
  'bcpkix',
  'bcutil',
  'bcjmail',
  'dom4j',
  'commons-lang3',
  'commons-cli',
  'slf4j-api',
  'logback-classic',
  'logback-core',
  'commons-io',
  'httpclient',
  'httpcore',
  'h2',
  'HikariCP',
  'jakarta-annotation-api',
].map((name) => `/usr/share/java/${name}.jar`);

export interface OpenAs2Home {
  classes: string;
  config: string;
  classpath: string;
}

/**
 * The OpenAS2 installation to compare with, or why there is none (the benchmark then says so
 * and skips the comparison instead of failing).
 */
export function findOpenAs2(dir: string | undefined): OpenAs2Home | { missing: string } {
  if (!dir)
    return { missing: 'no OpenAS2 given: pass --openas2 DIR or set OPENAS2_HOME (benchmarks/README.md)' };
  const classes = path.join(dir, 'classes');
  const config = path.join(dir, 'config');
  if (!existsSync(path.join(classes, 'org/openas2/app/OpenAS2Server.class')))
    return { missing: `${classes} holds no compiled OpenAS2 (org/openas2/app/OpenAS2Server.class)` };
  if (!existsSync(path.join(config, 'config.xml')))
    return { missing: `${config} holds no OpenAS2 config.xml` };
  const classpath = process.env.OPENAS2_CLASSPATH ?? debianJars.join(':');
  const absent = classpath.split(':').filter((jar) => !existsSync(jar));
  if (absent.length > 0) return { missing: `OpenAS2's libraries are not installed: ${absent.join(', ')}` };
  return { classes, config, classpath };
}

/** A partnership OpenAS2 knows: who sends to whom, and the attributes it is configured with. */
export interface OpenAs2Partnership {
  sender: string;
  receiver: string;
  attributes?: Record<string, string>;
  /** A directory poller for this partnership (its outbox), for sending. */
  poller?: { outbox: string; interval_s: number };
}

export interface OpenAs2Options {
  workDir: string;
  /** The PEM key pair every party uses (one key, as the pier side uses one certificate). */
  certificatePath: string;
  keyPath: string;
  /** AS2 ids of the parties; each gets a keystore entry of the one key pair. */
  parties: string[];
  partnerships: OpenAs2Partnership[];
  port: number;
  mdnPort: number;
  /** More lines of openas2.properties (overrides of config.xml's properties). */
  properties?: Record<string, string>;
}

export interface OpenAs2Server {
  pid: number;
  /** Where OpenAS2 writes the documents `sender` sends to `receiver`. */
  inbox(sender: string, receiver: string): string;
  dataDir: string;
  stop(): Promise<void>;
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function partnershipsXml(parties: string[], partnerships: OpenAs2Partnership[]): string {
  const lines = ['<partnerships>'];
  for (const id of parties)
    lines.push(
      `  <partner name="${id}" as2_id="${id}" x509_alias="${id.toLowerCase()}" email="${id}@example.invalid"/>`,
    );
  for (const p of partnerships) {
    lines.push(`  <partnership name="${p.sender}-to-${p.receiver}">`);
    lines.push(`    <sender name="${p.sender}"/>`, `    <receiver name="${p.receiver}"/>`);
    for (const [name, value] of Object.entries(p.attributes ?? {}))
      lines.push(`    <attribute name="${name}" value="${xmlEscape(value)}"/>`);
    if (p.poller)
      lines.push(
        `    <pollerConfig enabled="true" outboxdir="${xmlEscape(p.poller.outbox)}" interval="${p.poller.interval_s}"/>`,
      );
    lines.push('  </partnership>');
  }
  lines.push('</partnerships>', '');
  return lines.join('\n');
}

/** The one key pair under each party's alias, in the PKCS#12 keystore config.xml names. */
function writeKeystore(options: OpenAs2Options, configDir: string): void {
  const p12 = path.join(options.workDir, 'openas2-key.p12');
  execFileSync('openssl', [
    'pkcs12',
    '-export',
    '-in',
    options.certificatePath,
    '-inkey',
    options.keyPath,
    '-name',
    'key',
    '-passout',
    'pass:test',
    '-out',
    p12,
  ]);
  const store = path.join(configDir, 'as2_certs.p12');
  rmSync(store, { force: true });
  for (const id of options.parties)
    execFileSync(
      'keytool',
      [
        '-importkeystore',
        '-noprompt',
        '-srckeystore',
        p12,
        '-srcstoretype',
        'PKCS12',
        '-srcstorepass',
        'test',
        '-srcalias',
        'key',
        '-destkeystore',
        store,
        '-deststoretype',
        'PKCS12',
        '-deststorepass',
        'testas2',
        '-destkeypass',
        'testas2',
        '-destalias',
        id.toLowerCase(),
      ],
      { stdio: 'ignore' },
    );
}

export async function startOpenAs2(home: OpenAs2Home, options: OpenAs2Options): Promise<OpenAs2Server> {
  const root = path.join(options.workDir, 'openas2');
  const configDir = path.join(root, 'config');
  const dataDir = path.join(root, 'data');
  const logDir = path.join(root, 'logs');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  cpSync(home.config, configDir, { recursive: true });
  // Receivers bound to loopback only (config.xml has no property for their address).
  const configXml = path.join(configDir, 'config.xml');
  writeFileSync(
    configXml,
    readFileSync(configXml, 'utf8').replace(
      /classname="org\.openas2\.processor\.receiver\.(AS2ReceiverModule|AS2MDNReceiverModule)"/g,
      '$& address="127.0.0.1"',
    ),
  );
  const properties = {
    'module.AS2ReceiverModule.http.port': String(options.port),
    'module.AS2MDNReceiverModule.http.port': String(options.mdnPort),
    // Database tracking off, as the reviewers measured it: OpenAS2 then keeps no record but files.
    'module.DbTrackingModule.enabled': 'false',
    'msg_tracking.tcp_server_start': 'false',
    'module.DirectoryResenderModule.resenddelay': '600',
    ...options.properties,
  };
  writeFileSync(
    path.join(configDir, 'openas2.properties'),
    Object.entries(properties)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );
  writeFileSync(
    path.join(configDir, 'partnerships.xml'),
    partnershipsXml(options.parties, options.partnerships),
  );
  writeKeystore(options, configDir);
  const logFile = path.join(logDir, 'stdout.log');
  const out = openSync(logFile, 'a');
  const child = spawn(
    'java',
    [
      '-Xms256m',
      '-Xmx1g',
      `-Dopenas2.config.file=${configXml}`,
      `-DOPENAS2_LOG_DIR=${logDir}`,
      `-Dopenas2.properties.file=${path.join(configDir, 'openas2.properties')}`,
      '-cp',
      `${home.classes}:${home.classpath}:${configDir}`,
      'org.openas2.app.OpenAS2Server',
    ],
    { cwd: root, stdio: ['ignore', out, out] },
  );
  await untilListening(options.port, {
    timeoutMs: 120_000,
    gone: () => (child.exitCode === null ? null : `OpenAS2 exited with ${child.exitCode}; see ${logFile}`),
  });
  return {
    pid: child.pid!,
    dataDir,
    inbox: (sender, receiver) => path.join(dataDir, `${sender}-${receiver}`, 'inbox'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}
