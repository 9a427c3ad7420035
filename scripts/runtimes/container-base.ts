/**
 * The base image the container tests build pier's image on, made here where no image registry is
 * reachable: Debian bookworm's minimal root file system from Debian's packages (mmdebstrap), with
 * the Node 24 binary and npm where the public `node:24-bookworm-slim` image has them
 * (/usr/local/bin, /usr/local/lib/node_modules/npm), imported with `podman import`.
 *
 * Building it takes a minute or more, so it is cached by its inputs: the recipe below, the apt
 * sources it reads and the Node and npm versions make a key; the root file system is kept as
 * <cache>/container-base/<key>.tar (cache.ts), and the image is tagged localhost/pier-base:<key>.
 * A run whose image exists uses it; one whose tarball exists imports it (seconds); only a change of
 * an input builds again. `node --import tsx scripts/runtimes/container-base.ts` prints the image.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pierCacheDir } from './cache.js';
import { ensureNode24, ensureNpmTarball, node24Version, npmVersion } from './node-24.js';

const suite = 'bookworm';
/** minbase: the Essential packages and apt; ca-certificates for the partners' TLS, as the slim image has. */
const packages = ['ca-certificates'];
/**
 * Snapshot mirrors serve Release files whose Valid-Until has passed; the machine's apt is told to
 * accept them, and mmdebstrap's apt (configured apart from the machine's) is told the same.
 */
const aptOptions = ['Acquire::Check-Valid-Until "false"', 'Acquire::Check-Date "false"'];
/** What the root file system leaves out: documentation, manual pages and translations (copyrights stay). */
const dpkgOptions = [
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
];
/** Changed whenever the steps below change, so that the key does. */
const recipe = 'minbase+node-in-usr-local+npm 1';

/** The machine's apt sources when they are Debian bookworm's (a mirror or snapshot it reaches), else none. */
function aptSources(): string | undefined {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    if (/\bbookworm\b/.test(text)) return text;
  }
  return undefined;
}

export interface ContainerBase {
  image: string;
  /** What this call had to do: nothing (the image existed), import the cached tarball, or build it. */
  made: 'found' | 'imported' | 'built';
  seconds: number;
}

function podman(args: string[]): string {
  return execFileSync('podman', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function baseKey(sources: string | undefined): string {
  const inputs = { recipe, suite, packages, aptOptions, dpkgOptions, sources, node24Version, npmVersion };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
}

/** The base image's name, made (or imported from the cache) first when it is not there. */
export function ensureContainerBase(cache = pierCacheDir()): ContainerBase {
  const started = Date.now();
  const sources = aptSources();
  const key = baseKey(sources);
  const image = `localhost/pier-base:${key}`;
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  if (spawnSync('podman', ['image', 'exists', image]).status === 0)
    return { image, made: 'found', seconds: seconds() };

  const folder = path.join(cache, 'container-base');
  const tarball = path.join(folder, `${key}.tar`);
  let made: ContainerBase['made'] = 'imported';
  if (!existsSync(tarball)) {
    made = 'built';
    mkdirSync(folder, { recursive: true });
    const node = ensureNode24(cache);
    const npm = ensureNpmTarball(cache);
    const partial = path.join(folder, `${key}.partial-${process.pid}.tar`);
    const npmHome = '"$1/usr/local/lib/node_modules/npm"';
    const hooks = [
      `copy-in ${node} /usr/local/bin`,
      `mkdir -p ${npmHome} && tar -xzf ${npm} --strip-components=1 -C ${npmHome}`,
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
      'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
      'rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*',
    ];
    const built = spawnSync(
      'mmdebstrap',
      [
        '--quiet',
        '--format=tar',
        '--variant=minbase',
        `--include=${packages.join(',')}`,
        ...aptOptions.map((option) => `--aptopt=${option}`),
        ...dpkgOptions.map((option) => `--dpkgopt=${option}`),
        ...hooks.map((hook) => `--customize-hook=${hook}`),
        suite,
        partial,
        ...(sources === undefined ? [] : ['-']),
      ],
      { input: sources ?? '', encoding: 'utf8', stdio: ['pipe', 'inherit', 'pipe'] },
    );
    if (built.status !== 0) {
      rmSync(partial, { force: true });
      throw new Error(`mmdebstrap failed (exit ${built.status}): ${built.stderr.slice(-2000)}`);
    }
    renameSync(partial, tarball);
  }
  podman([
    'import',
    '--change',
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    '--change',
    'CMD ["node"]',
    tarball,
    image,
  ]);
  return { image, made, seconds: seconds() };
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const base = ensureContainerBase();
  process.stderr.write(`${base.image}: ${base.made} in ${base.seconds} s\n`);
  process.stdout.write(`${base.image}\n`);
}
