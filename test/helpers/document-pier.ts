/**
 * What the tests of docs/partner-setup.md share: the document's text and its blocks, and a
 * `pier serve --dev` process of its own (database, data directory, loopback port) as a reader
 * of the document would start one.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Test } from 'tap';
import { createTestDatabase } from './database.js';
import { tempDir } from './flow.js';
import { waitFor } from './wait.js';

export const root = path.resolve(import.meta.dirname, '../..');

export const partnerSetup = await readFile(path.join(root, 'docs/partner-setup.md'), 'utf8');

/** The bodies of the fenced blocks of `language` in `text`. */
export function blocksOf(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/**
 * The section of the document under the heading holding `title`, up to the next heading of its
 * level or above; lines inside fenced blocks (a shell comment, say) are not headings.
 */
export function sectionOf(text: string, title: string): string {
  const lines = text.split('\n');
  let fenced = false;
  let level = 0;
  const section: string[] = [];
  for (const line of lines) {
    const heading = fenced ? null : /^(#{1,6}) /.exec(line);
    if (line.startsWith('```')) fenced = !fenced;
    if (level > 0 && heading && heading[1]!.length <= level) break;
    if (level === 0 && heading && line.includes(title)) level = heading[1]!.length;
    if (level > 0) section.push(line);
  }
  return section.join('\n');
}

/** A `pier serve --dev` on a loopback port with its own database; answers its URL once it serves. */
export async function startPier(t: Test, name: string): Promise<string> {
  const db = await createTestDatabase();
  const dataDir = await tempDir(t, `pier-${name}-`);
  const child = spawn(process.execPath, [path.join(root, 'bin/pier-sources.js'), 'serve', '--dev'], {
    cwd: dataDir,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PIER_DATA_DIR: dataDir,
      HTTP_PORT: '0',
      METRICS_PORT: 'off',
      HTTP_HOST: '127.0.0.1',
      PIER_SECRET_KEY: 'pier-test-secret-key',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
    await db.drop();
  });
  return waitFor(
    () => /"url":"(http:[^"]+)","developerBuild":true,"msg":"pier is serving"/.exec(out)?.[1],
    `${name} serves`,
    120_000,
  );
}
