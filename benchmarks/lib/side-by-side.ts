/**
 * Two AS2 receivers measured side by side on one machine (openas2-receive.ts: pier and OpenAS2;
 * pier-ab.ts: two builds of pier): both run for the whole run and are warmed up first, then each
 * case runs in interleaved pairs, the order alternating (A B, B A, …), with `openssl speed
 * rsa2048` between cases so CPU is also given in RSA-2048 private-key operations. Pairs cancel the
 * host's drift, which on these machines moves a server's rate by a quarter or more between runs
 * minutes apart while two sides measured in turn within a run agree to a few per cent.
 */
import type { X509Certificate } from 'node:crypto';
import { measureCase, type CaseWatch, type Measured } from './as2-case.js';
import { closedLoop, newLoadState, type LoadTarget } from './as2-load.js';
import { buildAs2Requests, requestProfiles, type BenchKeyPair, type BuiltRequest } from './as2-requests.js';
import { opensslRsaSignsPerSecond, rssOf } from './cpu.js';

/** The cases: 10 KiB at 1, 4, 16 and 64 in flight, 8,000 sustained at 16, 1 MiB at 4. */
export const sideBySideCases = {
  c1: { concurrency: 1, messages: 1000, large: false },
  c4: { concurrency: 4, messages: 2000, large: false },
  c16: { concurrency: 16, messages: 2000, large: false },
  c64: { concurrency: 64, messages: 2000, large: false },
  sustained: { concurrency: 16, messages: 8000, large: false },
  large: { concurrency: 4, messages: 200, large: true },
} as const;

export type CaseName = keyof typeof sideBySideCases;

/** The options a side-by-side benchmark takes for its cases (node:util parseArgs). */
export const sideBySideArgs = {
  cases: { type: 'string' },
  rounds: { type: 'string' },
  scale: { type: 'string' },
  'warm-up': { type: 'string' },
} as const;

/** What to run: the cases, their pairs, their sizes and the warm-up. */
export interface SideBySideSettings {
  caseNames: readonly CaseName[];
  /** Pairs per case. */
  rounds: number;
  /** Multiplies every case's message count. */
  scale: number;
  /** Messages of 10 KiB per side at 16 before the first case; a twentieth as many of 1 MiB (at least 50) when the large case runs. */
  warmUp: number;
}

/** The settings `sideBySideArgs` gave, else these defaults (4,000 messages of warm-up, scale 1). */
export function sideBySideSettings(
  values: { cases?: string; rounds?: string; scale?: string; 'warm-up'?: string },
  defaults: { cases: readonly CaseName[]; rounds: number },
): SideBySideSettings {
  const caseNames = values.cases ? values.cases.split(',') : [...defaults.cases];
  for (const name of caseNames)
    if (!(name in sideBySideCases))
      throw new Error(`--cases takes ${Object.keys(sideBySideCases).join(', ')}`);
  return {
    caseNames: caseNames as CaseName[],
    rounds: Number(values.rounds ?? defaults.rounds),
    scale: Number(values.scale ?? 1),
    warmUp: Number(values['warm-up'] ?? 4000),
  };
}

/**
 * The requests every side is sent, built before any timing (as2-requests.ts, the full profile):
 * 500 of 10 KiB, and 20 of 1 MiB when the large case runs.
 */
export function sideBySideRequests(caseNames: readonly CaseName[], keys: BenchKeyPair) {
  const profile = requestProfiles.full;
  return {
    profile,
    small: buildAs2Requests(500, 10240, profile, keys, 'text'),
    large: caseNames.includes('large') ? buildAs2Requests(20, 1024 * 1024, profile, keys, 'text') : [],
  };
}

/** One receiver: its process (for its CPU and memory), its AS2 address and what a case watches. */
export interface Side {
  name: string;
  pid: number;
  url: string;
  watch: CaseWatch;
}

export interface SideBySideRun extends SideBySideSettings {
  /** The two sides; each pair's ratio is the first's figure over the second's. */
  sides: readonly [Side, Side];
  small: readonly BuiltRequest[];
  large: readonly BuiltRequest[];
  /** The receipts' signer, to check them. */
  certificate: X509Certificate;
  log: (text: string) => void;
}

/** Warms both sides up, then runs every case's pairs; each pair's figures, as logged. */
export async function runSideBySide(run: SideBySideRun): Promise<Record<string, unknown>[]> {
  const { sides, log } = run;
  let sent = 0;
  const measure = (side: Side, requests: readonly BuiltRequest[], concurrency: number, messages: number) => {
    const target: LoadTarget = {
      url: side.url,
      certificate: run.certificate,
      requests,
      messageId: () => `<cmp-${process.pid}-${++sent}@alice.example>`,
    };
    const state = newLoadState();
    return measureCase(side.watch, state, () =>
      closedLoop(target, state, concurrency, 'keepalive', messages),
    );
  };

  // The large case's messages warm up too (a twentieth as many, at its concurrency): its path (a
  // MiB inflated, written direct) is code the small ones never run, and without them the first
  // large round measured both servers' warm-up (pier 8.45 ms a message against 4.9-5.3 in the
  // rounds after it, OpenAS2 13.85 against 10.6-12.05: benchmarks/history/2026-11-28-the-large-case-warmed-up.md).
  const warmUps = [
    { kind: '10 KiB', requests: run.small, concurrency: 16, messages: run.warmUp },
    ...(run.large.length > 0 && run.warmUp > 0
      ? [
          {
            kind: '1 MiB',
            requests: run.large,
            concurrency: sideBySideCases.large.concurrency,
            messages: Math.max(50, Math.round(run.warmUp / 20)),
          },
        ]
      : []),
  ];
  for (const side of sides) {
    for (const { kind, requests, concurrency, messages } of warmUps) {
      if (messages === 0) continue;
      log(`warming up ${side.name} with ${messages} messages of ${kind}…`);
      const m = await measure(side, requests, concurrency, messages);
      if (m.state.ok < messages)
        throw new Error(`${side.name} warm-up: ${JSON.stringify(Object.fromEntries(m.state.problems))}`);
    }
  }

  const results: Record<string, unknown>[] = [];
  const [first, second] = sides;
  let rsa = opensslRsaSignsPerSecond();
  for (const [i, name] of run.caseNames.entries()) {
    const spec = sideBySideCases[name];
    const messages = Math.max(spec.concurrency, Math.round(spec.messages * run.scale));
    for (let round = 0; round < run.rounds; round++) {
      const order = (i + round) % 2 === 0 ? sides : [second, first];
      const pair: Record<string, unknown> = { case: name, round: round + 1, ...spec, messages };
      for (const side of order) {
        const rssBefore = rssOf(side.pid);
        const m = await measure(side, spec.large ? run.large : run.small, spec.concurrency, messages);
        const rsaNow = opensslRsaSignsPerSecond();
        pair[side.name] = sideFigures(m, (rsa + rsaNow) / 2, rssBefore, rssOf(side.pid));
        rsa = rsaNow;
      }
      pair[`${first.name}_over_${second.name}`] = ratio(
        pair[first.name] as SideFigures,
        pair[second.name] as SideFigures,
      );
      pair.first = order[0]!.name;
      log(JSON.stringify(pair));
      results.push(pair);
    }
  }
  return results;
}

type SideFigures = ReturnType<typeof sideFigures>;

/** One side's figures: end to end, CPU per delivered message, memory. */
function sideFigures(m: Measured, rsaSignsPerS: number, rssBefore: number, rssAfter: number) {
  const ok = Math.max(m.state.ok, 1);
  const round = (n: number, digits = 2) => Number(n.toFixed(digits));
  const cpuMs = m.server_cpu_ms + m.postgres_cpu_ms;
  const seconds = m.delivery!.seconds;
  return {
    processed: m.state.ok,
    errors: m.state.sent - m.state.ok,
    ...(m.state.problems.size > 0 ? { problems: Object.fromEntries(m.state.problems) } : {}),
    delivered_msg_per_s: round(m.state.ok / seconds, 1),
    unwritten_at_last_receipt: m.delivery!.unwritten_at_last_receipt,
    cpu_ms_per_msg: { server: round(m.server_cpu_ms / ok), postgres: round(m.postgres_cpu_ms / ok) },
    rsa_ops_per_msg: round((cpuMs * rsaSignsPerS) / 1000 / ok),
    openssl_rsa2048_sign_per_s: Math.round(rsaSignsPerS),
    machine_busy_pct: m.machine_busy_pct,
    rss_mib: { before: Math.round(rssBefore / 1048576), after: Math.round(rssAfter / 1048576) },
  };
}

function ratio(a: SideFigures, b: SideFigures) {
  return {
    delivered_msg_per_s: Number((a.delivered_msg_per_s / b.delivered_msg_per_s).toFixed(2)),
    rsa_ops_per_msg: Number((a.rsa_ops_per_msg / b.rsa_ops_per_msg).toFixed(2)),
  };
}
