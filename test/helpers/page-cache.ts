/**
 * How much of a file the page cache holds, read with util-linux's `fincore` (Debian's
 * util-linux-extra; .ci/run installs it): a document written straight to the disk holds none.
 */
import { execFileSync } from 'node:child_process';

export function cachedBytes(file: string): number {
  const out = JSON.parse(execFileSync('fincore', ['--json', '--bytes', file], { encoding: 'utf8' })) as {
    fincore: { res: number | string }[];
  };
  return Number(out.fincore[0]!.res);
}
