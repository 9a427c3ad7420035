/**
 * What `pier storage migrate --to s3|local` does: copies every stage from the store the servers
 * run with to the saved one (storage/payloads/copy-stages.ts), with a progress bar and a
 * summary. Runs beside serving processes. The README says how an operator moves from local to S3.
 */
import { mkdir } from 'node:fs/promises';
import { readProcessOptions } from '../../api/process-options.js';
import { connectDatabase } from '../../storage/connect.js';
import { copyStages, type CopyProgress } from '../../storage/payloads/copy-stages.js';
import { openPayloadStore } from '../../storage/payloads/open-store.js';
import { probeStorage } from '../../storage/payloads/probe.js';
import { LazyS3PayloadStore } from '../../storage/payloads/lazy-s3-store.js';
import { describeSelection, selectionOf, type StorageFields } from '../../storage/payloads/selection.js';
import { cliIo, say } from '../io.js';
import { inEntityTx } from '../../storage/sql.js';

export type Backend = StorageFields['storage_backend'];

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A bar on a terminal, redrawn in place; a line per tenth otherwise (logs, pipes). */
function progressPrinter(write: (text: string) => void, isTTY: boolean): (p: CopyProgress) => void {
  let lastTenth = -1;
  return (p) => {
    const done = p.copied + p.failures.length;
    const share = p.total === 0 ? 1 : done / p.total;
    const text = `${done}/${p.total} stages, ${mib(p.bytes)}, ${p.failures.length} failed`;
    if (isTTY) {
      const width = 30;
      const filled = Math.round(share * width);
      write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
      if (done === p.total) write('\n');
    } else if (Math.floor(share * 10) > lastTenth) {
      lastTenth = Math.floor(share * 10);
      write(`${Math.round(share * 100)}% ${text}\n`);
    }
  };
}

export async function migrateStorage(to: Backend): Promise<void> {
  const options = readProcessOptions(cliIo().env);
  const database = await connectDatabase(options, { runMigrations: true, create: false });
  try {
    const [saved] = await inEntityTx(database.orm.em).all<StorageFields>(
      'select storage_backend, storage_local_directory, storage_s3_bucket, storage_s3_region, storage_s3_endpoint from settings where id = 1',
    );
    if (!saved) throw new Error('The settings record is missing; run pier migrate');
    if (saved.storage_backend !== to) {
      throw new Error(
        `The saved storage is ${saved.storage_backend}: save storage_backend ${to} (PUT /api/v1/settings) before migrating to it`,
      );
    }
    const from: Backend = to === 's3' ? 'local' : 's3';
    const sourceSelection = selectionOf({ ...saved, storage_backend: from }, options.dataDir);
    const targetSelection = selectionOf(saved, options.dataDir);
    // A local target is made, as a server makes its directory at start.
    if (targetSelection.backend === 'local') await mkdir(targetSelection.directory, { recursive: true });
    for (const [role, selection] of [
      ['source', sourceSelection],
      ['target', targetSelection],
    ] as const) {
      const probe = await probeStorage(selection, { deadlineMs: 30_000 });
      if (!probe.ok) {
        throw new Error(
          `The ${role} (${describeSelection(selection)}) cannot be used: the ${probe.step} step failed: ${probe.problem}`,
        );
      }
    }
    const source = openPayloadStore(sourceSelection);
    const target = openPayloadStore(targetSelection);
    say(`Copying stages from ${describeSelection(sourceSelection)} to ${describeSelection(targetSelection)}`);
    try {
      const summary = await copyStages({
        orm: database.orm,
        source,
        target,
        onProgress: progressPrinter(cliIo().err, cliIo().errIsTty),
      });
      for (const f of summary.failures) {
        say(`failed: message ${f.ref.messageId} stage ${f.ref.stage}: ${f.problem}`);
      }
      say(
        `Copied ${summary.copied} objects (${summary.bytes} bytes), ${summary.skipped} copied by earlier runs, ${summary.failures.length} failures.`,
      );
      if (summary.failures.length > 0) {
        throw new Error(
          `${summary.failures.length} stages were not copied; run the command again to retry them`,
        );
      }
    } finally {
      for (const store of [source, target]) if (store instanceof LazyS3PayloadStore) await store.close();
    }
  } finally {
    await database.close();
  }
}
