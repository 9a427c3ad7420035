/**
 * Names the calling thread as the operating system shows it (`top -H`, `ps -L`,
 * /proc/<pid>/task/<tid>/comm), so a thread's share of the process's CPU can be told from the
 * others': the receiver's listeners, its opening pool, the file writer. Node 20 leaves every
 * worker thread named `node` (Node 22 and later name it after the Worker's `name` option); Linux
 * lets a thread set its own name, at most 15 bytes. Elsewhere nothing happens.
 */
import { writeFileSync } from 'node:fs';

export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // not Linux, or /proc not mounted: the name is only for the operator's tools
  }
}
