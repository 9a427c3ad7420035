/**
 * `pier bench as2` and `pier bench self`: benchmark runs for operators (docs/bench.md). The
 * messages are built first with pier's own sender and kept on disk, then fired; every receipt is
 * checked, and a run with a wrong or missing receipt exits 1 whatever its speed.
 */
import { Command, InvalidArgumentError } from 'commander';
import { writeFileSync } from 'node:fs';
import { ReportedError, wholeNumber } from '../args.js';
import { environment, withEnvironment } from '../env-help.js';
import { cliIo } from '../io.js';
import type { As2Options, CommonOptions } from '../bench/options.js';
import type { RunResult } from '../bench/run.js';

function wholeList(text: string): number[] {
  const values = text.split(',').map((v) => v.trim());
  if (values.some((v) => !/^[1-9][0-9]*$/.test(v)))
    throw new InvalidArgumentError('A comma-separated list of whole numbers above 0, such as 1,4,16,64.');
  return values.map(Number);
}

function connectionsList(text: string): ('keepalive' | 'new')[] {
  const values = text.split(',').map((v) => v.trim());
  if (values.some((v) => v !== 'keepalive' && v !== 'new'))
    throw new InvalidArgumentError('keepalive, new, or both: keepalive,new.');
  return values as ('keepalive' | 'new')[];
}

function seconds(text: string): number {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) <= 0)
    throw new InvalidArgumentError('A number of seconds above 0.');
  return Number(text);
}

function common(command: Command): Command {
  return command
    .option('--concurrency <list>', 'clients sending at once, one case each', wholeList, [1, 4, 16, 64])
    .option(
      '--connections <list>',
      'keepalive (connections kept) and/or new (a connection per message)',
      connectionsList,
      ['keepalive'],
    )
    .option(
      '--messages <n>',
      'messages per case (the count limit); also the size of a set built here',
      wholeNumber,
      1000,
    )
    .option('--duration <s>', 'seconds per case at most (the time limit)', seconds)
    .option('--warm-up <n>', 'messages sent first, at the highest concurrency, not counted', wholeNumber, 100)
    .option('--timeout <s>', 'seconds to wait for an answer (or an asynchronous receipt)', seconds, 60)
    .option('--size <bytes>', 'document size of the messages built here', wholeNumber, 10240)
    .option('--json', 'print the run as one JSON document')
    .option('--report <file>', 'write an HTML report with plots (one file, nothing fetched)');
}

/** Prints the run as asked and fails the command when a receipt was wrong. */
async function output(result: RunResult, opts: CommonOptions, extra = ''): Promise<void> {
  const [{ renderTable }, { renderHtml }] = await Promise.all([
    import('../bench/render-text.js'),
    import('../bench/render-html.js'),
  ]);
  const table = renderTable(result) + extra;
  if (opts.report) writeFileSync(opts.report, renderHtml(result, table));
  cliIo().out(opts.json ? `${JSON.stringify(result)}\n` : table);
  if (!result.passed) throw new ReportedError('a receipt was wrong');
}

function as2Command(): Command {
  return common(
    new Command('as2')
      .description(
        'Fire AS2 messages at an endpoint (pier, OpenAS2, Mendelson, a partner’s test system) and check every receipt',
      )
      .option('--url <url>', 'the AS2 endpoint (with --partner: instead of the profile’s)')
      .option('--from <as2id>', 'AS2-From: the sender’s AS2 name')
      .option('--to <as2id>', 'AS2-To: the receiver’s AS2 name')
      .option('--key <file>', 'the sender’s private key (PEM), which signs')
      .option('--cert <file>', 'the sender’s certificate (PEM)')
      .option(
        '--partner-cert <file>',
        'the receiver’s certificate (PEM): encrypts to it, verifies its receipts',
      )
      .option('--receipt-cert <file>', 'the receipts’ signer, when not --partner-cert')
      .option(
        '--partner <name>',
        'take endpoint, AS2 names, keys and shape from this install’s partner profile',
      )
      .option('--organization <name>', 'with --partner: the sending organization (when there are several)')
      .option('--sign <algorithm>', 'none, sha256 (default), sha384, sha512, rsa-pss-sha256, …')
      .option(
        '--encrypt <algorithm>',
        'none, aes256-cbc (default), aes128-cbc, aes128-gcm, aes256-gcm, 3des, …',
      )
      .option('--compress', 'compress before signing (default)')
      .option('--no-compress', 'do not compress')
      .option('--receipts <mode>', 'sync-signed (default), sync-unsigned, async or none')
      .option(
        '--receipt-url <url>',
        'async: where the receiver posts receipts; this command listens on its port',
      )
      .option(
        '--tls-ca <file>',
        'https: trust the certificates in this PEM file too (a partner’s private CA, a self-signed test server)',
      )
      .option('--no-tls-verify', 'https: do not verify the server’s certificate (a test system only)')
      .option('--file <file>', 'send this file’s bytes in every message instead of generated EDI text')
      .option('--set <dir>', 'the message set: fire the one in DIR, or build it there and keep it')
      .option(
        '--compare <url>',
        'fire the same messages at a second endpoint, in interleaved pairs (A then B)',
      )
      .option(
        '--rounds <n>',
        'pairs per case with --compare (default 3), repeats otherwise (default 1)',
        wholeNumber,
      )
      .option(
        '--server-pid <pid>',
        'the server’s process, for CPU per message (found by itself for a server on this machine)',
        wholeNumber,
      )
      .option('--compare-server-pid <pid>', 'the second endpoint’s server process', wholeNumber),
  ).action(async (opts: As2Options) => {
    const { runAs2 } = await import('../bench/as2-command.js');
    const result = await runAs2(opts);
    await output(result, opts);
  });
}

function selfCommand(): Command {
  return withEnvironment(
    common(
      new Command('self').description(
        'This install end to end on loopback: a pier of its own with a receiver, a route and a file-writer, fired at, the documents counted; removes everything after',
      ),
    )
      .option('--drain-timeout <s>', 'seconds without a new document before the count gives up', seconds, 60)
      .action(async (opts: CommonOptions & { drainTimeout: number }) => {
        const { runSelf } = await import('../bench/self-command.js');
        const result = await runSelf(opts);
        const d = result.delivered;
        await output(
          result,
          opts,
          `Documents written: ${d.written} of ${d.expected}, the last ${d.seconds_after_last_receipt} s after the last receipt.\n`,
        );
      }),
    environment.database,
  );
}

export function benchCommand(): Command {
  return new Command('bench')
    .description('Benchmark runs: AS2 messages fired at an endpoint, every receipt checked (docs/bench.md)')
    .addCommand(as2Command())
    .addCommand(selfCommand());
}
