/**
 * What `pier bench as2` does with its options: the sender's context (flags, or a partner's
 * profile from this install's records), the message set (built here or read from `--set`), the
 * endpoints with their server processes, then the run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identification } from '../../runtime/index.js';
import type { As2Options } from './options.js';
import { UsageError } from '../args.js';
import { cliIo } from '../io.js';
import { withSession } from '../session.js';
import { listeningPid } from './cpu.js';
import { buildSet, loadSet, type MessageSet } from './message-set.js';
import { progressOn } from './render-text.js';
import { runBench, type Endpoint, type RunResult } from './run.js';
import { contextFromFlags, readPem, withShape } from './shape.js';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';

/** The server behind a URL on this machine (not this process), for CPU per message. */
export function serverPidOf(url: string, given: number | undefined): number | null {
  if (given !== undefined) return given;
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return null;
  const pid = listeningPid(Number(u.port || (u.protocol === 'https:' ? 443 : 80)));
  // A server in this very process would count the load generator's CPU as its own.
  return pid === process.pid ? null : pid;
}

async function contextOf(opts: As2Options): Promise<As2OutboundContext> {
  let context: As2OutboundContext;
  if (opts.partner !== undefined) {
    const partner = opts.partner;
    context = await withSession(async (ctx) => {
      const { outboundContextOf } = await import('../../runtime/index.js');
      return outboundContextOf(ctx.orm, ctx.secrets, partner, opts.organization);
    });
    if (opts.url) context = { ...context, endpoint: opts.url };
  } else {
    const missing = (['url', 'from', 'to', 'key', 'cert', 'partnerCert'] as const).filter((k) => !opts[k]);
    if (missing.length)
      throw new UsageError(
        `Name the endpoint and both parties: ${missing.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} missing (or take them from a partner profile with --partner NAME)`,
      );
    context = contextFromFlags({
      url: opts.url!,
      from: opts.from!,
      to: opts.to!,
      key: opts.key!,
      cert: opts.cert!,
      partnerCert: opts.partnerCert!,
      ...(opts.receiptCert ? { receiptCert: opts.receiptCert } : {}),
    });
  }
  if (opts.tlsCa !== undefined)
    context = { ...context, tls_trusted: [...context.tls_trusted, readPem(opts.tlsCa, '--tls-ca')] };
  if (opts.tlsVerify === false) context = { ...context, tls_verify: false };
  return withShape(context, {
    ...(opts.sign !== undefined ? { sign: opts.sign } : {}),
    ...(opts.encrypt !== undefined ? { encrypt: opts.encrypt } : {}),
    ...(opts.compress !== undefined ? { compress: opts.compress } : {}),
    ...(opts.receipts !== undefined ? { receipts: opts.receipts } : {}),
    ...(opts.receiptUrl !== undefined ? { receiptUrl: opts.receiptUrl } : {}),
  });
}

export async function runAs2(opts: As2Options): Promise<RunResult> {
  for (const url of [opts.url, opts.compare])
    if (url !== undefined && !/^https?:\/\/[^/]/.test(url))
      throw new UsageError(`Not an http(s) address: ${url}`);
  const context = await contextOf(opts);
  const io = cliIo();
  const log = (line: string) => io.err(`${line}\n`);
  const scratch = opts.set === undefined ? mkdtempSync(path.join(os.tmpdir(), 'pier-bench-set-')) : null;
  const dir = opts.set ?? scratch!;
  try {
    let set: MessageSet;
    if (existsSync(path.join(dir, 'manifest.json'))) {
      set = loadSet(dir);
      log(`firing the ${set.manifest.messages.length} messages of ${dir}`);
    } else {
      log(`building ${opts.messages} messages${opts.set ? ` in ${dir}` : ''}…`);
      set = await buildSet(dir, context, {
        count: opts.messages,
        size: opts.size,
        ...(opts.file ? { file: opts.file } : {}),
        userAgent: identification(false),
      });
    }
    const endpoints: Endpoint[] = [
      { name: 'a', url: context.endpoint, serverPid: serverPidOf(context.endpoint, opts.serverPid) },
    ];
    if (opts.compare)
      endpoints.push({
        name: 'b',
        url: opts.compare,
        serverPid: serverPidOf(opts.compare, opts.compareServerPid),
      });
    return await runBench(
      {
        endpoints,
        context,
        set,
        concurrencies: opts.concurrency,
        connections: opts.connections,
        messages: opts.messages,
        durationS: opts.duration ?? null,
        warmUp: opts.warmUp,
        rounds: opts.rounds ?? (opts.compare ? 3 : 1),
        timeoutS: opts.timeout,
        receiptUrl: set.manifest.receipts === 'async' ? context.async_mdn_url : null,
      },
      progressOn(io.err, io.errIsTty),
    );
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
