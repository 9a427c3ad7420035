/**
 * How soon V8 gives a function to its optimizing compiler (TurboFan), set for the whole process
 * by `pier serve` before any worker thread starts.
 *
 * V8 optimizes a function fully once it has run about 3,000 calls' worth of its budget. A
 * received message calls most of the AS2 path's functions once, and every thread is a V8 isolate
 * that learns them on its own: with three opening threads each sees a third of the messages. At
 * V8's default the receive path was still being optimized after 15,000 messages, TurboFan
 * compiling in bursts all along, and each case of 3,000 messages cost less CPU than the one before
 * it. At 500 TurboFan compiles about three times as much in all (functions that never reached
 * 3,000 are optimized too), most of it within the first 6,000 messages, and the third to fifth
 * cases cost 9 to 11 % less of the server's CPU; side by side with OpenAS2, after 10,000
 * messages, 2 to 7 % less at 4 and 64, up to 10 % sustained, the same at 16. Measured in
 * benchmarks/history/2026-11-28-turbofan-sooner.md.
 */
import v8 from 'node:v8';
import { limits } from '../limits/limits.js';

const flag = /--invocation[-_]count[-_]for[-_]turbofan/;

/**
 * Sets the threshold unless the operator gave node one (NODE_OPTIONS cannot carry this flag);
 * answers the setting made, or null. Node 20's V8 (11.3) has no such flag and would print an
 * error for it, so it is left alone there.
 */
export function setTurbofanThreshold(
  execArgv: readonly string[] = process.execArgv,
  v8Version: string = process.versions.v8,
): string | null {
  if (Number(v8Version.split('.')[0]) < 12) return null;
  if (execArgv.some((a) => flag.test(a))) return null;
  const setting = `--invocation-count-for-turbofan=${limits.turbofanInvocations}`;
  v8.setFlagsFromString(setting);
  return setting;
}
