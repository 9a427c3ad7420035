// Covers the program-runner target in a real `pier serve`: real scripts run for each document with its facts as argv (no shell: metacharacters in a file name run nothing), exit code and output on the message, a non-zero exit or the timeout fails the delivery with the reason, the timeout kills the program's children too, secrets reach the program only through its environment and never a response or log line, and an unknown placeholder is refused when the configuration is saved.
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { mustOn, runningIn, spawnPier } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- messages are asserted field by field
type Message = any;

const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-program-runner-');
const records = path.join(dir, 'records');
const scripts = path.join(dir, 'scripts');
await mkdir(records, { recursive: true });
await mkdir(scripts, { recursive: true });

/** Writes an executable script of its own. */
async function script(name: string, body: string): Promise<string> {
  const file = path.join(scripts, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

// Records its arguments (NUL-separated, so each is seen exactly), the document and its environment.
const record = await script(
  'record.sh',
  `printf '%s\\0' "$@" > "$RECORD_DIR/$3.args"
cat "$1" > "$RECORD_DIR/$3.copy"
env > "$RECORD_DIR/$3.env"
echo "hello from the program: $2"`,
);
const fail = await script('fail.sh', `echo "the ERP refused it" >&2\nexit 3`);
const slow = await script(
  'slow.sh',
  `sleep 120 &
echo $! > "$RECORD_DIR/child.pid"
echo $$ > "$RECORD_DIR/script.pid"
echo started
wait`,
);

const pier = await spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, 'data'), cwd: dir });
await mustOn(pier, '/organizations', { name: 'acme' });
for (const name of ['globex', 'failer', 'slowpoke']) await mustOn(pier, '/partners', { name });
const environment = [
  { name: 'RECORD_DIR', value: records },
  { name: 'ERP_TOKEN', value: 'erp-token-secret-value' },
];
const runner = (name: string, program: string, more: Record<string, unknown> = {}) =>
  mustOn(pier, '/plugins/configs?type=program-runner', {
    name,
    program,
    arguments: [
      '{file}',
      '{fileName}',
      '{messageId}',
      '{from}',
      '{to}',
      '{direction}',
      'size={size}',
      '{{literal}}',
    ],
    work_directory: path.join(dir, 'work', name),
    environment,
    max_attempts: 1,
    ...more,
  });
await runner('record', record);
await runner('fail', fail);
await runner('slow', slow, { timeout_seconds: 2 });
const routes: [string, string][] = [
  ['globex', 'record'],
  ['failer', 'fail'],
  ['slowpoke', 'slow'],
];
for (const [to] of routes) await mkdir(path.join(dir, 'in', to), { recursive: true });
await mustOn(pier, '/plugins/configs?type=file-poller', {
  name: 'in',
  base_directory: path.join(dir, 'in'),
  processed_directory: path.join(dir, 'done'),
  from: 'acme',
  polling_interval: 1,
});
for (const [to, target] of routes)
  await mustOn(pier, '/routes', { source_plugin: 'in', from: 'acme', to, target_plugin: target });
for (const name of ['record', 'fail', 'slow', 'in']) await runningIn(pier, name);

async function finishedMessage(fileName: string, timeoutMs = 30_000): Promise<Message> {
  const listed = await waitFor(
    async () => {
      const list = (await pier.call('GET', '/messages?limit=100')).body.data.messages as Message[];
      return list.find((m) => m.file_name === fileName && m.stage === 'settled');
    },
    `${fileName} settled`,
    timeoutMs,
    100,
  );
  return (await pier.call('GET', `/messages/${String(listed.id)}`)).body.data;
}
const historyText = (m: Message) =>
  (m.history as { text?: string | null }[]).map((h) => h.text ?? '').join('\n');

t.test(
  'exit 0: delivered, the program got the file and the facts as its arguments, its output on the message',
  async (t) => {
    await writeFile(path.join(dir, 'in', 'globex', 'order-1.edi'), 'UNB+ORDER-ONE');
    const m = await finishedMessage('order-1.edi');
    t.match(m, { status: 'Delivered', deliveries: [{ target: 'record', state: 'delivered', attempts: 1 }] });
    t.match(
      historyText(m),
      /record\.sh exited with 0 in \d+ ms; output: hello from the program: order-1\.edi/,
    );
    const args = (await readFile(path.join(records, `${String(m.id)}.args`), 'utf8'))
      .split('\0')
      .slice(0, -1);
    t.equal(args.length, 8, 'one argv entry per template');
    t.ok(
      path.isAbsolute(args[0]!) && args[0]!.startsWith(path.join(dir, 'work', 'record')),
      '{file}: a path under the work directory',
    );
    t.same(args.slice(1), ['order-1.edi', m.id, 'acme', 'globex', m.direction, 'size=13', '{literal}']);
    t.equal(
      await readFile(path.join(records, `${String(m.id)}.copy`), 'utf8'),
      'UNB+ORDER-ONE',
      '{file} held the document',
    );
    t.same(await readdir(path.join(dir, 'work', 'record')), [], 'the run’s copy is removed afterwards');
    const env = await readFile(path.join(records, `${String(m.id)}.env`), 'utf8');
    t.match(env, /ERP_TOKEN=erp-token-secret-value/, 'a write-only variable reaches the program');
    t.notMatch(env, /DATABASE_URL|PIER_SECRET_KEY/, 'pier’s own secrets never do');
  },
);

t.test('a file name full of shell metacharacters is one argument and runs nothing', async (t) => {
  const name = 'a;touch PWNED1 && b $(touch PWNED2) `touch PWNED3` |c >PWNED4 \'q".edi';
  await writeFile(path.join(dir, 'in', 'globex', name), 'UNB+META');
  const m = await finishedMessage(name);
  t.equal(m.status, 'Delivered');
  const args = (await readFile(path.join(records, `${String(m.id)}.args`), 'utf8')).split('\0');
  t.equal(args[1], name, '{fileName} arrives exactly as the message carries it');
  t.equal(path.basename(args[0]!), name, '{file} is named after it');
  for (const place of [dir, path.join(dir, 'work', 'record'), scripts, records])
    t.notOk(
      (await readdir(place)).some((f) => f.startsWith('PWNED')),
      `nothing was run in ${place}`,
    );
});

t.test('a non-zero exit fails the delivery with the exit code and what it said', async (t) => {
  await writeFile(path.join(dir, 'in', 'failer', 'refused.edi'), 'UNB+NO');
  const m = await finishedMessage('refused.edi');
  t.equal(m.status, 'Error');
  t.match(m.deliveries[0], { target: 'fail', state: 'failed', attempts: 1 });
  t.match(m.deliveries[0].last_error, /fail\.sh exited with 3 after \d+ ms; errors: the ERP refused it/);
});

t.test('the timeout kills the program and what it started, and fails the delivery', async (t) => {
  const started = Date.now();
  await writeFile(path.join(dir, 'in', 'slowpoke', 'slow.edi'), 'UNB+SLOW');
  const m = await finishedMessage('slow.edi');
  const took = Date.now() - started;
  t.equal(m.status, 'Error');
  t.match(m.deliveries[0].last_error, /slow\.sh ran past its 2 s timeout and was killed; output: started/);
  t.ok(took < 20_000, `ended by the timeout, not by the script (${took} ms)`);
  for (const file of ['script.pid', 'child.pid']) {
    const pid = Number(await readFile(path.join(records, file), 'utf8'));
    const alive = await waitFor(
      () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return 'gone';
        }
      },
      `${file} ${pid} gone`,
      5000,
    );
    t.equal(alive, 'gone', `${file}: the process is gone`);
  }
});

t.test('secrets are never shown: not in the configuration, a message or a log line', async (t) => {
  const config = await pier.call('GET', '/plugins/configs?type=program-runner');
  t.notMatch(JSON.stringify(config.body), /erp-token-secret-value/);
  const messages = await pier.call('GET', '/messages?limit=100');
  t.notMatch(JSON.stringify(messages.body), /erp-token-secret-value/);
  t.notMatch(JSON.stringify(pier.logLines), /erp-token-secret-value/);
});

t.test(
  'an unknown placeholder or an unmatched brace is refused when saved, and nothing is made',
  async (t) => {
    for (const [args, expected] of [
      [
        ['{file}', '{filename}'],
        /Argument 2 \("\{filename\}"\): Unknown placeholder \{filename\}; use \{file\}, \{fileName\}/,
      ],
      [['--name={fileName'], /Argument 1 .*unmatched \{ or \}/],
    ] as const) {
      const r = await pier.call('POST', '/plugins/configs?type=program-runner', {
        name: 'bad',
        program: record,
        arguments: args,
        work_directory: path.join(dir, 'work', 'bad'),
      });
      t.equal(r.status, 400);
      t.match(r.body.error.code, 'INVALID_INPUT');
      t.match(r.body.error.details.arguments, expected, 'the argument and the placeholder are named');
    }
    const relative = await pier.call('POST', '/plugins/configs?type=program-runner', {
      name: 'bad',
      program: 'record.sh',
      work_directory: path.join(dir, 'work', 'bad'),
    });
    t.equal(relative.status, 400);
    t.match(relative.body.error.details.program, /absolute path of a program file/);
    const list = await pier.call('GET', '/plugins/configs');
    t.notOk(JSON.stringify(list.body).includes('"bad"'), 'no configuration was made');
  },
);
