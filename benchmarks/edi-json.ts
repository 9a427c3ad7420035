/**
 * `npm run bench -- edi-json [--mib 1,50] [--plain]`: EDI → JSON and JSON → EDI, streamed from a
 * file into a file, for an X12 interchange of each size (850 purchase orders, 14 segments each);
 * the EDI written back is compared with the original byte for byte after the passes (`same_bytes`). Prints MiB/s of EDI per CPU second and per wall second each way, and the peak
 * RSS growth over the process's size before each pass (sampled every 10 ms), and the load average
 * at the end (the machine is often shared). `--plain` leaves
 * out the annotations (positions) the API and targets add. Runs a few seconds at 50 MiB.
 * A size under 8 MiB is translated 30 times each way: the first passes in a fresh process are
 * mostly the JIT's warm-up, which a running server has behind it (at 1 MiB the first runs at
 * 7–9 MiB/s, the tenth at about 35, from the twentieth on 50–60), so the figures are the median
 * of the last ten, and `first_*` the first pass's.
 * Targets: ≥ 50 MiB/s each way; memory growth ≤ 32 MiB at 50 MiB.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { annotate } from '../edi/json/annotate.js';
import { ediToJson, jsonToEdi } from '../edi/json/translate.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const sizes = arg('mib', '1,50').split(',').map(Number);
const plain = process.argv.includes('--plain');

/** An X12 interchange of about `mib` MiB: one group of 850s. */
function interchange(mib: number): string {
  const body = [
    'BEG*00*SA*4500012345**20261125',
    'CUR*BY*EUR',
    'REF*DP*038',
    'DTM*002*20261210',
    'N1*ST*Pier Warehouse North*92*0042',
    'N3*Dockside 7',
    'N4*Hamburg**20457*DE',
    'PO1*1*120*EA*4.25*PE*VP*ACME-100*BP*PIER-100',
    'PID*F****Hex bolt M8 x 40',
    'PO1*2*48*BX*18.90*PE*VP*ACME-220*BP*PIER-220',
    'PID*F****Washer, zinc, box of 100',
    'CTT*2',
  ];
  const sets: string[] = [];
  let size = 0;
  for (let n = 1; size < mib * 1024 * 1024; n++) {
    const control = String(n).padStart(9, '0');
    const set = [`ST*850*${control}`, ...body, `SE*${body.length + 2}*${control}`].join('~\n') + '~\n';
    sets.push(set);
    size += set.length;
  }
  return (
    'ISA*00*          *00*          *ZZ*PIERBUYER      *ZZ*ACMESUPPLY     *261125*0930*U*00401*000000101*0*P*>~\n' +
    'GS*PO*PIERBUYER*ACMESUPPLY*20261125*0930*1001*X*004010~\n' +
    sets.join('') +
    `GE*${sets.length}*1001~\nIEA*1*000000101~\n`
  );
}

interface Pass {
  cpu_s: number;
  wall_s: number;
  rss_growth_mib: number;
  out_mib: number;
}

async function measure(run: () => Promise<number>): Promise<Pass> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const out = await run();
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    cpu_s: (used.user + used.system) / 1e6,
    wall_s: wall,
    rss_growth_mib: Math.round(((peak - base) / 1024 / 1024) * 10) / 10,
    out_mib: out / 1024 / 1024,
  };
}

/**
 * Counts the translation's output, writing it to `file` when given: each Buffer as it comes,
 * through a FileHandle, awaited before the next is asked for (so at most one is in flight, as
 * a stream's backpressure would allow). Through Readable.from and a write stream the same
 * 206 MiB cost 0.05–0.1 CPU seconds more (stream machinery per chunk), which is the
 * benchmark's, not the translation's.
 */
async function counted(source: AsyncIterable<Buffer>, file?: string): Promise<number> {
  let bytes = 0;
  const out = file ? await open(file, 'w') : null;
  try {
    for await (const chunk of source) {
      bytes += chunk.length;
      for (let at = 0; out && at < chunk.length;) at += (await out.write(chunk, at)).bytesWritten;
    }
  } finally {
    await out?.close();
  }
  return bytes;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-edi-json-'));
const results: Record<string, unknown>[] = [];
try {
  for (const mib of sizes) {
    const ediFile = path.join(dir, `${mib}.edi`);
    const jsonFile = path.join(dir, `${mib}.json`);
    const backFile = path.join(dir, `${mib}.back.edi`);
    // The bytes the passes' EDI is compared with, made once rather than read back every pass.
    const original = Buffer.from(interchange(mib), 'latin1');
    await writeFile(ediFile, original);
    const ediMib = original.length / 1024 / 1024;
    const passes = mib < 8 ? 30 : 1;
    const toJson: Pass[] = [];
    const toEdi: Pass[] = [];
    let same = true;
    for (let pass = 0; pass < passes; pass++) {
      process.stderr.write(`${mib} MiB: EDI → JSON …\n`);
      toJson.push(
        await measure(() =>
          counted(
            ediToJson(createReadStream(ediFile, { highWaterMark: 256 * 1024 }), plain ? null : annotate),
            jsonFile,
          ),
        ),
      );
      process.stderr.write(`${mib} MiB: JSON → EDI …\n`);
      const back = await measure(() =>
        counted(jsonToEdi(createReadStream(jsonFile, { highWaterMark: 256 * 1024 })), backFile),
      );
      toEdi.push(back);
      same &&= (await readFile(backFile)).equals(original) && Math.abs(back.out_mib - ediMib) < 1e-9;
    }
    const rate = (s: number) => Math.round((ediMib / s) * 10) / 10;
    /** The pass whose CPU is the median of the warm ones (the last ten), or the only one. */
    const typical = (p: Pass[]) => {
      const warm = p.slice(-10).sort((a, b) => a.cpu_s - b.cpu_s);
      return warm[Math.floor(warm.length / 2)]!;
    };
    const [json, edi] = [typical(toJson), typical(toEdi)];
    results.push({
      mib: Math.round(ediMib * 10) / 10,
      passes,
      json_mib: Math.round(json.out_mib * 10) / 10,
      to_json_mib_per_cpu_s: rate(json.cpu_s),
      to_json_mib_per_s: rate(json.wall_s),
      to_json_rss_growth_mib: Math.max(...toJson.map((p) => p.rss_growth_mib)),
      to_edi_mib_per_cpu_s: rate(edi.cpu_s),
      to_edi_mib_per_s: rate(edi.wall_s),
      to_edi_rss_growth_mib: Math.max(...toEdi.map((p) => p.rss_growth_mib)),
      ...(passes > 1 && {
        first_to_json_mib_per_cpu_s: rate(toJson[0]!.cpu_s),
        first_to_edi_mib_per_cpu_s: rate(toEdi[0]!.cpu_s),
      }),
      same_bytes: same,
    });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
// The machine is often shared: CPU seconds are the figure to compare, the load says how shared.
const load = os.loadavg().map((l) => Math.round(l * 10) / 10);
process.stdout.write(`${JSON.stringify({ benchmark: 'edi-json', annotated: !plain, load, results })}\n`);
