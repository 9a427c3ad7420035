// Covers `npm run deps` (scripts/deps.ts, run by `npm run lint`): the code as it is has no import cycle and no two folders depending both ways, and a tree planted with a cycle between files, with two runtime/ subfolders importing each other, or with two top-level folders importing each other, fails with each named.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

function deps(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/deps.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

/** A tree of files under a temporary root: path → text. */
function plant(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pier-deps-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

t.test('the code as it is: no cycle, no two folders both ways', async (t) => {
  const { status, out } = deps();
  t.equal(status, 0, out);
  t.match(out, 'no two folders depend on each other');
  t.match(out, 'no import cycle');
  t.match(out, 'inside runtime/:');
});

t.test('a planted import cycle between three files fails, naming its way round', async (t) => {
  const dir = plant(t, {
    'flow/alerts/alerts.ts': "import { tx } from '../tx.js';\nexport const alerts = tx;\n",
    'flow/tx.ts': "import { raise } from './alerts/flow-alerts.js';\nexport const tx = raise;\n",
    'flow/alerts/flow-alerts.ts': "import { alerts } from './alerts.js';\nexport const raise = alerts;\n",
  });
  const { status, out } = deps('--root', dir);
  t.equal(status, 1);
  t.match(
    out,
    'import cycles:\nflow/alerts/alerts.ts → flow/tx.ts → flow/alerts/flow-alerts.ts → flow/alerts/alerts.ts',
  );
});

t.test('a type-only cycle counts too', async (t) => {
  const dir = plant(t, {
    'flow/commands/accept.ts': "import type { Plan } from './accept-plan.js';\nexport type Item = Plan;\n",
    'flow/commands/accept-plan.ts':
      "import type { Item } from './accept.js';\nexport type Plan = { items: Item[] };\n",
  });
  const { status, out } = deps('--root', dir);
  t.equal(status, 1);
  t.match(out, 'flow/commands/accept-plan.ts → flow/commands/accept.ts → flow/commands/accept-plan.ts');
});

t.test('two runtime/ subfolders importing each other fail, without any cycle between files', async (t) => {
  const dir = plant(t, {
    'runtime/alerts/raise.ts':
      "import { dispatch } from '../dispatch/dispatcher.js';\nexport const raise = dispatch;\n",
    'runtime/dispatch/dispatcher.ts': 'export const dispatch = 1;\n',
    'runtime/dispatch/stall.ts': "import { raise } from '../alerts/raise.js';\nexport const stall = raise;\n",
  });
  const { status, out } = deps('--root', dir);
  t.equal(status, 1);
  t.match(out, 'both ways:\nruntime/alerts ⇄ runtime/dispatch (1 / 1)');
  t.match(out, 'no import cycle');
});

t.test('two top-level folders importing each other fail', async (t) => {
  const dir = plant(t, {
    'protocol/wire.ts': "import { store } from '../storage/store.js';\nexport const wire = store;\n",
    'storage/store.ts': 'export const store = 1;\n',
    'storage/open.ts': "import { wire } from '../protocol/wire.js';\nexport const open = wire;\n",
  });
  const { status, out } = deps('--root', dir);
  t.equal(status, 1);
  t.match(out, 'protocol ⇄ storage (1 / 1)');
});
