/**
 * pier's image as the container tests run it: deploy/container/Containerfile built on the base made
 * here from Debian's packages and Node 24 (scripts/runtimes/container-base.ts), from the release
 * tarball `npm pack` makes of the checkout. The image is tagged by what went into it (the tarball,
 * the Containerfile, the base), so a second test file of the same run finds it built.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureContainerBase, type ContainerBase } from '../../scripts/runtimes/container-base.js';
import { checkoutRoot } from '../helpers/checkout.js';
import { podman, runTool } from './podman.js';

export const containerfile = path.join(checkoutRoot, 'deploy/container/Containerfile');

export interface PierImage {
  image: string;
  base: ContainerBase;
  /** Seconds `npm pack` took, and the image build (0 when the image was there already). */
  packSeconds: number;
  buildSeconds: number;
}

const since = (started: number) => Math.round((Date.now() - started) / 100) / 10;

export async function buildPierImage(): Promise<PierImage> {
  const base = ensureContainerBase();
  const context = await mkdtemp(path.join(tmpdir(), 'pier-image-'));
  try {
    let started = Date.now();
    // prepack builds dist/ first (npm run build), as a release's pack does.
    const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const packed = await runTool('npm', ['pack', '--pack-destination', context, '--loglevel=error'], {
      cwd: checkoutRoot,
      env: cleanEnv,
    });
    if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const packSeconds = since(started);
    const [tarball] = (await readdir(context)).filter((name) => name.endsWith('.tgz'));
    const inputs = createHash('sha256')
      .update(readFileSync(path.join(context, tarball!)))
      .update(readFileSync(containerfile))
      .update(base.image)
      .digest('hex');
    const image = `localhost/pier-test:${inputs.slice(0, 16)}`;
    if ((await podman(['image', 'exists', image])).code === 0)
      return { image, base, packSeconds, buildSeconds: 0 };

    started = Date.now();
    // Behind a TLS-inspecting proxy the machine trusts its certificate through NODE_EXTRA_CA_CERTS;
    // the install stage's npm is given the same file.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    const caArgs =
      extraCa && existsSync(extraCa)
        ? ['--build-arg', `NODE_EXTRA_CA_CERTS=${extraCa}`, '--volume', `${extraCa}:${extraCa}:ro`]
        : [];
    const built = await podman(
      ['build', '--format', 'docker', '--build-arg', `BASE_IMAGE=${base.image}`, ...caArgs].concat([
        '--file',
        containerfile,
        '--tag',
        image,
        context,
      ]),
      { timeoutMs: 900_000 },
    );
    if (built.code !== 0)
      throw new Error(`podman build failed:\n${built.stdout.slice(-3000)}\n${built.stderr.slice(-3000)}`);
    await removeEarlierImages(image);
    return { image, base, packSeconds, buildSeconds: since(started) };
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/**
 * Each run's tarball is new, so each run builds an image (about 0.9 GB with its untagged first
 * stage): those of earlier runs and the stages go once this one is built, so a CI machine keeps one.
 */
async function removeEarlierImages(current: string): Promise<void> {
  const listed = await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost/pier-test']);
  const earlier = listed.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('localhost/pier-test:') && line !== current);
  if (earlier.length > 0) await podman(['rmi', '--force', ...earlier]);
  await podman(['image', 'prune', '--force']);
}

/**
 * The stand-in for the public postgres image (test/fixtures/container/postgres/), on the same base,
 * tagged by its files and the base so a second run finds it built.
 */
export async function buildPostgresImage(
  base: ContainerBase,
): Promise<{ image: string; buildSeconds: number }> {
  const context = path.join(checkoutRoot, 'test/fixtures/container/postgres');
  const hash = createHash('sha256');
  for (const name of (await readdir(context)).sort())
    hash.update(name).update(readFileSync(path.join(context, name)));
  const image = `localhost/pier-test-postgres:${hash.update(base.image).digest('hex').slice(0, 16)}`;
  if ((await podman(['image', 'exists', image])).code === 0) return { image, buildSeconds: 0 };
  const started = Date.now();
  const built = await podman(['build', '--build-arg', `BASE_IMAGE=${base.image}`, '--tag', image, context], {
    timeoutMs: 900_000,
  });
  if (built.code !== 0) throw new Error(`podman build of PostgreSQL failed:\n${built.stderr.slice(-3000)}`);
  return { image, buildSeconds: since(started) };
}
