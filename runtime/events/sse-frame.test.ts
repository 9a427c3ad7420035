// Covers the history lines' framing against fastify-sse-v2's own serialiser: a client reads the
// lines the feed frames and the events the plugin sends on the same stream, so both must be the
// same text for the same event, data with line breaks included.
import t from 'tap';
import { serializeSSEEvent } from 'fastify-sse-v2/lib/sse.js';
import { sseFrame } from './sse-frame.js';

const data = JSON.stringify({ id: '17', kind: 'status', text: 'accepted' });

t.equal(
  sseFrame('message_history', data, 17),
  serializeSSEEvent({ id: '17', event: 'message_history', data }),
  'a history line is framed as the plugin frames it',
);
t.equal(sseFrame('message_history', data, 17), `id: 17\nevent: message_history\ndata: ${data}\n\n`);
t.equal(
  sseFrame('note', 'first\nsecond'),
  serializeSSEEvent({ event: 'note', data: 'first\nsecond' }),
  'each line of the data is a data field of its own',
);
t.equal(sseFrame('note', 'first\nsecond'), 'event: note\ndata: first\ndata: second\n\n');
