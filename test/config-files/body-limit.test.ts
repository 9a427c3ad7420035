// Covers the size of a configuration file sent to the API: plan and apply (and the web UI's import) take a body past the API's usual 1 MiB, up to 16 MiB, and a body over 16 MiB is 413 PAYLOAD_TOO_LARGE naming the limit, with nothing changed.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { openUi } from '../ui/helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const MiB = 1024 * 1024;

/** A valid file of about `bytes`: three partners, and the notes an operator keeps in comments. */
function fileOf(bytes: number): string {
  const partners = ['acme', 'globex', 'initech'].map((name) => `  - name: ${name}\n`).join('');
  const note = `# ${'Kept as agreed with the partner in the onboarding call. '.repeat(4)}\n`;
  const notes = note.repeat(Math.ceil(bytes / note.length));
  return `pier_config: 1\n${notes}partners:\n${partners}`;
}
const partnerCount = async () =>
  (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from partner'))[0]!.n;

t.test('a file of more than 1 MiB is planned and applied', async (t) => {
  const body = { document: fileOf(1.2 * MiB) };
  t.ok(Buffer.byteLength(JSON.stringify(body)) > 1.2 * MiB, 'the body is past 1 MiB');
  const plan = await server.call('POST', '/api/v1/config/plan', { body });
  t.equal(plan.status, 200, plan.raw.slice(0, 300));
  t.same(
    plan.body.data.changes.map((c: { action: string; name: string }) => `${c.action} ${c.name}`),
    ['create acme', 'create globex', 'create initech'],
  );
  const applied = await server.call('POST', '/api/v1/config/apply', { body });
  t.equal(applied.status, 200, applied.raw.slice(0, 300));
  t.equal(await partnerCount(), 3);
});

t.test("the web UI's import plans a file of more than 1 MiB", async (t) => {
  const ui = await openUi(server);
  const document = fileOf(1.2 * MiB).replace('initech', 'umbrella');
  const planned = await ui.post('/ui/config/import', { document, step: 'plan' });
  t.equal(planned.status, 200);
  t.match(planned.body, /Create<\/td>\s*<td>partners <strong>umbrella<\/strong>/);
});

t.test('a body over 16 MiB is 413 PAYLOAD_TOO_LARGE and changes nothing', async (t) => {
  const document = fileOf(16 * MiB).replace('initech', 'umbrella');
  t.ok(Buffer.byteLength(JSON.stringify({ document })) > 16 * MiB, 'the body is past 16 MiB');
  for (const step of ['plan', 'apply']) {
    const answer = await server.call('POST', `/api/v1/config/${step}`, { body: { document } });
    t.equal(answer.status, 413, step);
    t.same(
      answer.body.error,
      { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the limit of 16 MiB' },
      step,
    );
  }
  t.equal(await partnerCount(), 3, 'nothing changed');
});
