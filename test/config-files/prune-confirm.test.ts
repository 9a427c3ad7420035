// Covers the confirmation of a large prune: a prune deleting up to half of the install's records applies as asked; one deleting more (a file naming nothing) is refused by apply with 400 stating the count, and with a count other than the one it deletes, changing nothing, while plan lists the deletions; with confirm_delete set to the count it deletes them, and the web UI applies from its plan by confirming the count the plan showed.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { openUi, renderedForm } from '../ui/helpers.js';

const server = await startTestServer(t, { developerBuild: true });
for (const [url, body] of [
  ['/organizations', { name: 'ours' }],
  ['/partners', { name: 'acme' }],
  ['/partners', { name: 'globex' }],
  ['/partners', { name: 'initech' }],
  ['/plugins/configs?type=file-writer', { name: 'out', enabled: false, directory: await tempDir(t) }],
] as const) {
  const made = await server.call('POST', `/api/v1${url}`, { body });
  if (made.status !== 201) throw new Error(made.raw);
}

const nothingNamed = JSON.stringify({ pier_config: 1 });
const apply = (body: Record<string, unknown>) => server.call('POST', '/api/v1/config/apply', { body });
const exported = async () => (await server.call('GET', '/api/v1/config')).body.data;
const auditCount = async () =>
  (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from audit_event'))[0]!.n;
const listed = (changes: { action: string; section: string; name: string }[]) =>
  changes.map((c) => `${c.action} ${c.section} ${c.name}`);
const allFour = [
  'delete organizations ours',
  'delete partners acme',
  'delete partners globex',
  'delete instances out',
];

t.test('a prune of up to half of the records applies without a confirmation', async (t) => {
  const file = await exported();
  file.partners = file.partners.filter((p: { name: string }) => p.name !== 'initech');
  const pruned = await apply({ document: JSON.stringify(file), prune: true });
  t.equal(pruned.status, 200, pruned.raw);
  t.same(listed(pruned.body.data.changes), ['delete partners initech'], '1 of 5 records');
});

t.test('a prune of more than half is refused without its count, or with another', async (t) => {
  const before = { config: await exported(), audit: await auditCount() };
  const refused = await apply({ document: nothingNamed, prune: true });
  t.equal(refused.status, 400);
  t.same(refused.body.error, {
    code: 'INVALID_INPUT',
    message: "Applying would delete 4 of the install's 4 record(s), more than half; nothing was applied",
    details: { confirm_delete: 'To delete them, send confirm_delete: 4' },
  });
  const miscounted = await apply({ document: nothingNamed, prune: true, confirm_delete: 3 });
  t.equal(miscounted.status, 400);
  t.same(miscounted.body.error, {
    code: 'INVALID_INPUT',
    message: 'Applying would delete 4 record(s), not the 3 confirmed; nothing was applied',
    details: { confirm_delete: 'To delete them, send confirm_delete: 4' },
  });
  const plan = await server.call('POST', '/api/v1/config/plan', {
    body: { document: nothingNamed, prune: true },
  });
  t.equal(plan.status, 200, 'a plan lists what would go, and its count, without a confirmation');
  t.same(listed(plan.body.data.changes), allFour);
  t.same({ config: await exported(), audit: await auditCount() }, before, 'nothing changed');
});

t.test('the web UI confirms the count of its plan when applying from it', async (t) => {
  const saved = await exported();
  const ui = await openUi(server);
  const planned = await ui.post('/ui/config/import', { document: nothingNamed, prune: 'true', step: 'plan' });
  t.equal(planned.status, 200);
  t.match(planned.body, 'Applying deletes 4 record(s), as listed below.');
  const form = renderedForm(planned.body, '/ui/config/import');
  t.equal(form.confirm_delete, '4', 'the form carries the count it showed');

  const applied = await ui.post('/ui/config/import', { ...form, step: 'apply' });
  t.equal(applied.status, 200, applied.body.slice(0, 500));
  t.match(applied.body, 'Applied: 4 record(s) changed.');
  const empty = await exported();
  t.same([empty.organizations, empty.partners, empty.instances], [[], [], []], 'all four deleted');

  // Back as they were, for the API's confirmed prune.
  const restored = await apply({ document: JSON.stringify(saved) });
  t.equal(restored.status, 200, restored.raw);
});

t.test('with confirm_delete set to the count, the prune deletes them', async (t) => {
  const pruned = await apply({ document: nothingNamed, prune: true, confirm_delete: 4 });
  t.equal(pruned.status, 200, pruned.raw);
  t.same(listed(pruned.body.data.changes), allFour);
  t.same(pruned.body.data.instances, [{ type: 'file-writer', name: 'out', outcome: 'deleted', error: null }]);
  const after = await exported();
  t.same([after.organizations, after.partners, after.instances], [[], [], []]);
});
