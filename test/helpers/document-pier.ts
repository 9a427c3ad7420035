/**
 * What the tests of docs/partner-setup.md share: the document's text and its blocks, and a
 * `pier serve --dev` process of its own (database, data directory, loopback port) as a reader
 * of the document would start one.
 */
import { spawn } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Test } from 'tap';
import { freePort } from './as2.js';
import { createTestDatabase } from './database.js';
import { tempDir } from './flow.js';
import { spawnPier } from './process.js';

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
  t.teardown(() => db.drop());
  const dataDir = await tempDir(t, `pier-${name}-`);
  const pier = await spawnPier(t, { databaseUrl: db.url, dataDir, cwd: dataDir });
  // Stopped as a reader would stop it, before its database goes.
  t.teardown(() => pier.kill('SIGTERM'));
  return pier.url;
}

/** One of the two piers the document connects, as its blocks see it. */
export interface Side {
  name: string;
  as2id: string;
  work: string;
  url: string;
  receiverPort: number;
}

/** acme and globex, each a `pier serve` of its own with a work directory and a free receiver port. */
export async function twoSides(t: Test): Promise<[Side, Side]> {
  const [urlA, urlB] = await Promise.all([startPier(t, 'acme'), startPier(t, 'globex')]);
  const side = async (name: string, as2id: string, url: string): Promise<Side> => ({
    name,
    as2id,
    work: await tempDir(t),
    url,
    receiverPort: await freePort(),
  });
  return [await side('acme', 'ACME', urlA), await side('globex', 'GLOBEX', urlB)];
}

/**
 * A script of the document run by bash as its reader would, with the variables the document
 * asks for set for `side`, whose partner is `partner`; its output followed while it runs.
 */
export function runBlock(script: string, side: Side, partner: Side, timeoutMs?: number) {
  let out = '';
  const child = spawn('bash', ['-c', script], {
    env: {
      ...process.env,
      PIER: side.url,
      TOKEN: '',
      WORK: side.work,
      ORG: side.name,
      OUR_AS2_ID: side.as2id,
      PARTNER: partner.name,
      PARTNER_AS2_ID: partner.as2id,
      PARTNER_URL: `http://127.0.0.1:${partner.receiverPort}/as2`,
      RECEIVER_HOST: '127.0.0.1',
      RECEIVER_PORT: String(side.receiverPort),
    },
    timeout: timeoutMs,
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  return { done, out: () => out };
}

/** Both sides make their keys with the document's first block, then each takes the other's certificate. */
export async function exchangeKeys(t: Test, keysBlock: string, a: Side, b: Side): Promise<void> {
  for (const [one, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const keys = runBlock(keysBlock, one, other, 120_000);
    t.equal(await keys.done, 0, keys.out());
  }
  await copyFile(path.join(a.work, 'our.crt'), path.join(b.work, 'partner.crt'));
  await copyFile(path.join(b.work, 'our.crt'), path.join(a.work, 'partner.crt'));
}
