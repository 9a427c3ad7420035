/**
 * Which `pier` a benchmark starts: the compiled build operators run (`dist`, the default; built
 * first when older than the sources) or the TypeScript sources through tsx (`sources`, as pier
 * ran before the build existed). PIER_BENCH_BUILD chooses, so a before/after pair runs the same
 * harness against both.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export type PierBuild = 'dist' | 'sources';

const root = path.resolve(import.meta.dirname, '../..');

export function pierBuildOf(text: string | undefined): PierBuild {
  const build = text ?? 'dist';
  if (build !== 'dist' && build !== 'sources') throw new Error('PIER_BENCH_BUILD is dist or sources');
  return build;
}

/** The script to run with node for `build`, after bringing dist/ up to date when it is used. */
export function pierEntry(build: PierBuild = pierBuildOf(process.env.PIER_BENCH_BUILD)): string {
  if (build === 'sources') return path.join(root, 'bin/pier-sources.js');
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts'), '--if-needed'], {
    stdio: 'inherit',
  });
  return path.join(root, 'bin/pier.js');
}
