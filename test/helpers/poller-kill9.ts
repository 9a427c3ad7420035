/**
 * The file poller under kill -9, the run shared by test/flow/file-poller-kill9.test.ts (a file
 * writer as the target) and test/sftp/sftp-kill9-file-poller.test.ts (an sftp-sender): 40 files
 * written into the poller's directory while pier runs, some before the first kill, some while it
 * is down, some after; the process killed with SIGKILL twice while taking and delivering, started
 * again each time; then what a user checks: every file delivered once with its bytes, one message
 * per file, nothing left in the directory, nothing in processed without its message.
 */
import { randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Test } from 'tap';
import { sql } from './database.js';
import { flowOn, killablePier, mustOn, type PierProcess } from './process.js';
import { waitFor } from './wait.js';

export const pollerKill9Files = 40;

export interface PollerKill9Target {
  /** The target's plugin type and its settings (name `out`). */
  type: string;
  settings: Record<string, unknown>;
  /** What the target delivered so far: its files by name (temporaries included), with their bytes. */
  delivered(): Promise<Map<string, Buffer>>;
}

type Row = Record<string, unknown>;

/** Small files (kept inline with their record) and larger ones (in the payload store), mixed. */
const contentOf = (i: number) => randomBytes(i % 3 === 0 ? 2048 + i : 1024 * 1024 + i);

export async function pollerKill9(t: Test, name: string, target: PollerKill9Target): Promise<void> {
  const { dbUrl, dir, inbox, start } = await killablePier(t, `pier-poller-kill9-${name}-`);
  const processed = path.join(dir, 'done', 'globex');
  const rows = (query: string) => sql(dbUrl, query) as Promise<Row[]>;
  const count = async (where: string) =>
    Number((await rows(`select count(*)::int as n from ${where}`))[0]!.n);
  const contents = new Map<string, Buffer>();
  const write = async (from: number, to: number, pauseMs: number) => {
    for (let i = from; i < to; i++) {
      const bytes = contentOf(i);
      contents.set(`f${String(i).padStart(2, '0')}.bin`, bytes);
      await writeFile(path.join(inbox, `f${String(i).padStart(2, '0')}.bin`), bytes);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const listed = (d: string) => readdir(d).catch(() => [] as string[]);

  /**
   * What must hold at any moment, even right after a kill: every file written is still in the
   * poller's directory or has its message, and no file is in processed without its message (a
   * file moved there under a suffix, `name.<id>.bin`, counts under its own name).
   */
  const invariant = async (when: string) => {
    const messages = new Set((await rows('select file_name from message')).map((r) => String(r.file_name)));
    const left = new Set(await listed(inbox));
    const moved = await listed(processed);
    const movedWithout = moved.filter((f) => !messages.has(f.replace(/\.[0-9a-f]{8}(\.bin)$/, '$1')));
    const vanished = [...contents.keys()].filter((f) => !left.has(f) && !messages.has(f));
    t.same(movedWithout, [], `${when}: no file in processed without its message`);
    t.same(vanished, [], `${when}: every file written is in the directory or has its message`);
    return { messages: messages.size, left: left.size, moved: moved.length };
  };
  const killed = async (p: PierProcess, when: string) => {
    await p.kill('SIGKILL');
    const states = await rows('select state, count(*)::int as n from delivery group by state order by state');
    const seen = await invariant(`killed ${when}`);
    t.comment(
      `killed ${when}: ${seen.messages} messages, ${seen.left} files not yet moved, ${seen.moved} in processed, deliveries ${JSON.stringify(states.map((s) => `${String(s.state)} ${String(s.n)}`))}`,
    );
  };

  const first = await start();
  await mustOn(first, `/plugins/configs?type=${target.type}`, { name: 'out', ...target.settings });
  await flowOn(first, dir, { target: 'out', poller: { polling_interval: 1 } });

  // 1. Files arrive while the first process runs; it is killed while taking and delivering them.
  const firstKillAt = 4 + Math.floor(Math.random() * 8);
  await write(0, 16, 150);
  // Killed as soon as files are being moved to processed (the moment a take ends), …
  await waitFor(async () => (await listed(processed)).length >= firstKillAt, 'the first takes', 60_000, 2);
  await killed(first, `first (at ${firstKillAt}+ files in processed)`);

  // 2. More files arrive while no process runs, and more once the second one runs.
  await write(16, 26, 0);
  const second = await start();
  const secondKillAt = 28 + Math.floor(Math.random() * 8);
  await write(26, pollerKill9Files, 150);
  // … and the second time as soon as messages are accepted (the moment a take's acceptance commits).
  await waitFor(
    async () => (await count('message')) >= secondKillAt,
    'the second process taking the files written after it started',
    60_000,
    5,
  );
  await killed(second, `second (at ${secondKillAt}+ messages)`);

  // 3. The third process finishes: it takes back the dead processes' claims (their presence
  // locks went with their connections) before its actors start and on every 5 s sweep after, so
  // this takes seconds (2.5 to 5.3 s from its start to the last delivery in the runs so far);
  // the wait below leaves a wide margin for a loaded machine.
  const restarted = Date.now();
  const third = await start();
  await waitFor(
    async () =>
      (await count("delivery where state = 'delivered'")) === pollerKill9Files &&
      (await listed(inbox)).length === 0,
    'every file taken and delivered',
    60_000,
    100,
  ).catch(async (error: unknown) => {
    t.comment(String(error));
    t.comment(
      JSON.stringify(
        await rows(
          "select m.file_name, m.status, d.state, d.attempts, d.claims, d.last_error from message m left join delivery d on d.message_id = m.id where d.state is distinct from 'delivered'",
        ),
      ),
    );
    t.comment(`left in the directory: ${JSON.stringify(await listed(inbox))}`);
    t.comment(JSON.stringify(third.logLines.filter((l) => l.level >= 40).slice(-20)));
  });

  t.comment(`the third process finished ${Date.now() - restarted} ms after it was started`);
  await invariant('at the end');
  const messages = await rows('select file_name, status from message order by file_name');
  t.same(
    messages.map((m) => m.file_name),
    [...contents.keys()].sort(),
    'one message per file: none lost, none doubled',
  );
  t.same(
    messages.filter((m) => m.status !== 'Delivered').map((m) => `${String(m.file_name)} ${String(m.status)}`),
    [],
    'each Delivered',
  );
  t.equal(
    await count("delivery where state = 'delivered'"),
    pollerKill9Files,
    'one delivery each, delivered',
  );
  t.same(await listed(inbox), [], 'no file left in the directory');
  t.same((await listed(processed)).sort(), [...contents.keys()].sort(), 'each moved to processed once');
  const delivered = await target.delivered();
  t.same([...delivered.keys()].sort(), [...contents.keys()].sort(), 'each delivered once under its name');
  const wrong = [...contents].filter(([f, bytes]) => !delivered.get(f)?.equals(bytes)).map(([f]) => f);
  t.same(wrong, [], 'with its bytes');
  const again = await rows('select count(*)::int as n from delivery where claims > 1');
  t.comment(`deliveries claimed more than once: ${String(again[0]!.n)}`);
}
