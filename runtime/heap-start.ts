/**
 * The old generation every thread's heap starts with, set for the threads started after it.
 *
 * A received MiB of EDI lives a few milliseconds as one buffer, moved from the thread that
 * inflated it to the file writer that writes it (open-worker.ts, handoff-protocol.ts). V8 counts
 * such buffers against the receiving thread's old-generation limit, which for a heap of 20 MiB
 * is a few dozen MiB: the writer ran a full mark-compact every twenty or so documents (57 in 900
 * at 1 MiB), each marking its whole heap on every core, although the buffers were garbage by then
 * and the young-generation collections free them anyway. Starting the limit at 128 MiB left 5 to 7,
 * and a 1 MiB message took a quarter less CPU; at 10 KiB it changed nothing. The cost is a few
 * tens of MiB more resident memory. Measured in
 * benchmarks/history/2026-11-26-a-compressed-document-inflated-once-and-handed-on.md.
 */
import v8 from 'node:v8';
import { limits } from '../limits/limits.js';

/** Before any worker thread starts: V8 reads the flag when it makes an isolate's heap. */
export function setInitialOldSpace(): void {
  v8.setFlagsFromString(`--initial-old-space-size=${limits.initialOldSpaceMib}`);
}
