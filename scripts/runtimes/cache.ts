/**
 * Where the runtimes and images that tests and CI build are kept between runs: outside the
 * repository, so a fresh clone (CI's) finds what an earlier run on the machine built, and nothing of
 * it is committed or packed. PIER_CACHE_DIR moves it; else $XDG_CACHE_HOME/pier or ~/.cache/pier.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export function pierCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIER_CACHE_DIR) return path.resolve(env.PIER_CACHE_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'pier');
}
