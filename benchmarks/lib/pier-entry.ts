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

/**
 * The script to run with node for `build`, after bringing dist/ up to date when it is used.
 * `checkout`: the pier checkout to run, this one unless told (pier-ab.ts runs another beside it).
 */
export function pierEntry(
  build: PierBuild = pierBuildOf(process.env.PIER_BENCH_BUILD),
  checkout: string = root,
): string {
  if (build === 'sources') return path.join(checkout, 'bin/pier-sources.js');
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(checkout, 'scripts/build.ts'), '--if-needed'],
    {
      cwd: checkout,
      stdio: 'inherit',
    },
  );
  return path.join(checkout, 'bin/pier.js');
}
