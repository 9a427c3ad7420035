/** `pier bench` on a terminal: the progress bar while a case runs, and the table of figures after. */
import type { Progress, RunResult } from './run.js';

/** A bar redrawn in place on a terminal (`tty`), else one line per case when it ends. */
export function progressOn(write: (text: string) => void, tty: boolean): Progress {
  let label = '';
  let total = 0;
  let lastDraw = 0;
  const draw = (done: number, failed: number) => {
    const width = 30;
    const filled = Math.round((Math.min(done, total) / Math.max(total, 1)) * width);
    write(
      `\r${label.padEnd(24)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${failed ? ` ${failed} failed` : ''}`,
    );
  };
  return {
    begin(l, t) {
      label = l;
      total = t;
      if (tty) draw(0, 0);
    },
    step(done, failed) {
      const now = performance.now();
      if (tty && (now - lastDraw > 100 || done === total)) {
        lastDraw = now;
        draw(done, failed);
      }
    },
    end() {
      write(tty ? '\n' : `${label}: done\n`);
    },
  };
}

const kinds = (failures: Record<string, number>) =>
  Object.entries(failures)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '-';

/** The figures as a table, then the comparison ratios and the verdict. */
export function renderTable(r: RunResult): string {
  /** Where documents are counted (`pier bench self`): msg/s until each case's last document. */
  const delivering = r.cases.some((c) => c.delivered !== null);
  const header = [
    'endpoint',
    'conn',
    'conc',
    'round',
    'sent',
    'ok',
    'msg/s',
    ...(delivering ? ['delivered/s'] : []),
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'CPU ms/msg',
    'RSA ops/msg',
    'failures',
  ];
  const rows = r.cases.map((c) => [
    c.endpoint === 'a' ? 'A' : 'B',
    c.connections,
    String(c.concurrency),
    String(c.round),
    String(c.sent),
    String(c.ok),
    c.msg_per_s.toFixed(1),
    ...(delivering ? [c.delivered ? c.delivered.msg_per_s.toFixed(1) : '-'] : []),
    c.latency_ms.p50.toFixed(1),
    c.latency_ms.p90.toFixed(1),
    c.latency_ms.p99.toFixed(1),
    c.latency_ms.max.toFixed(1),
    c.cpu ? c.cpu.server_ms_per_msg.toFixed(2) : '-',
    c.cpu ? c.cpu.rsa2048_ops_per_msg.toFixed(1) : '-',
    kinds(c.failures),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i < 2 || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  const out = [
    `A: ${r.endpoints[0]!.url}${r.endpoints[0]!.serverPid ? ` (server pid ${r.endpoints[0]!.serverPid})` : ''}`,
    ...(r.endpoints[1]
      ? [
          `B: ${r.endpoints[1].url}${r.endpoints[1].serverPid ? ` (server pid ${r.endpoints[1].serverPid})` : ''}`,
        ]
      : []),
    `${r.set.messages} messages of ${r.set.size_bytes} bytes (${r.set.document}); ${String(r.set.shape.signing_algorithm)} / ${String(r.set.shape.encryption_algorithm)}${r.set.shape.compression ? ' / compressed' : ''}; receipts ${String(r.set.shape.receipts)}`,
    `RSA-2048: ${r.rsa2048_ops_per_s.before}–${r.rsa2048_ops_per_s.after} private-key operations per CPU second (${r.rsa2048_ops_per_s.source})`,
    '',
    line(header),
    ...rows.map(line),
  ];
  for (const w of r.warm_up)
    if (Object.keys(w.failures).length) out.push(`warm-up ${w.endpoint.toUpperCase()}: ${kinds(w.failures)}`);
  if (r.comparisons.length) {
    out.push('', 'B/A msg/s (median of the pairs; each pair A then B):');
    for (const c of r.comparisons)
      out.push(
        `  ${c.connections} ×${c.concurrency}: ${c.ratio.toFixed(3)} (pairs ${c.pair_ratios.join(', ')})`,
      );
  }
  out.push(
    '',
    r.passed
      ? `PASSED: every receipt was right${delivering ? ', every document delivered' : ''}.`
      : `FAILED: some messages were not answered with a right receipt (failures by kind above)${delivering ? ' or their documents were not delivered' : ''}; the figures do not count.`,
  );
  return `${out.join('\n')}\n`;
}
