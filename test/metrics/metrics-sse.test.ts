// Covers the event stream's subscribers gauge: a client following GET /api/v1/events over a real socket is counted while it follows, and no longer once it lets go.
import t from 'tap';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrapeUntil } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

const server = await startTestServer(t, { listen: true, env: { METRICS_PORT: '0' } });

t.test('subscribers are counted while they follow the stream', async (t) => {
  const client = await openSse(`${server.url}/api/v1/events`, { authorization: `Bearer ${server.token}` });
  t.equal(client.status, 200);
  const following = await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_sse_subscribers') === 1,
    'one subscriber',
  );
  t.equal(valueOf(following, 'pier_sse_subscribers'), 1);
  client.close();
  const gone = await scrapeUntil(server, (m) => valueOf(m, 'pier_sse_subscribers') === 0, 'none');
  t.equal(valueOf(gone, 'pier_sse_subscribers'), 0);
});
