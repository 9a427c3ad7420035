// Covers the messages page's total (docs/decisions/the-messages-page-counts-up-to-1-000-then-estimates.md): counted exactly up to 1,000 past the page's start, beyond that the planner's estimate shown as "about"; the API's total stays exact; the page refuses a bad filter with the API's messages.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { openUi, shownErrors } from './helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const ui = await openUi(server);
const stored = 1500;
await sql(
  server.db.url,
  `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                        source_name, accepted_by, created_at, updated_at)
   select gen_random_uuid(), case when g <= 3 then 'Error' else 'Delivered' end, 'settled', 'outbound',
          'acme', 'globex', 'file-' || g || '.edi', 'api', 'api', 1,
          now() - g * interval '1 minute', now() - g * interval '1 minute'
     from generate_series(1, ${stored}) g`,
);
await sql(server.db.url, 'analyze message');

const pagerText = (body: string) =>
  /<nav class="pager" aria-label="Pages">\s*<span>([^<]*)<\/span>/.exec(body)?.[1]?.replace(/\s+/g, ' ');

t.test('beyond 1,000 matches the page says about how many; below, exactly', async (t) => {
  const api = await server.call('GET', '/api/v1/messages?limit=1');
  t.equal(api.body.data.total, stored, 'the API counts exactly');

  const all = await ui.get('/ui/messages');
  t.equal(all.status, 200);
  const text = pagerText(all.body);
  const about = Number(/^1–50 of about ([\d,]+)$/.exec(text ?? '')?.[1]?.replace(/,/g, ''));
  t.ok(about > 1000 && Math.abs(about - stored) <= stored * 0.2, `an estimate near ${stored}: ${text}`);
  t.match(all.body, 'rel="next"', 'there is a next page');

  const few = await ui.get('/ui/messages?status=Error');
  t.equal(pagerText(few.body), '1–3 of 3', 'a small result is counted exactly');
  const deep = await ui.get('/ui/messages?offset=1450');
  t.equal(pagerText(deep.body), `1451–${stored} of ${stored}`, 'counted exactly from the page on');
  t.notMatch(deep.body, 'rel="next"');
});

t.test('a bad filter is refused with the API’s messages', async (t) => {
  const query = 'status=Lost&since=yesterday';
  const api = await server.call('GET', `/api/v1/messages?${query}`);
  const page = await ui.get(`/ui/messages?${query}`);
  t.equal(api.status, 400);
  t.same(shownErrors(page.body), api.body.error.details);
  const rows = await ui.get('/ui/messages/rows?status=Lost');
  t.equal(rows.status, 400, 'the live rows refuse it too');
});
