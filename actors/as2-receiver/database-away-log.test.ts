// Covers the receiver's log lines about its database (database-away-log.ts): an outage is told once when it starts and once when it ends, however the requests around its start and end overlap.
import t from 'tap';
import { DatabaseAwayLog } from './database-away-log.js';

const away = 'AS2 messages are answered 503 while the database does not take them';
const back = 'the database takes AS2 messages again';

function logged() {
  const lines: string[] = [];
  const log = new DatabaseAwayLog((_level, msg) => void lines.push(msg));
  return { lines, log };
}

t.test('requests under way at the start and at the end of an outage tell nothing new', async (t) => {
  const { lines, log } = logged();
  const beforeOutage = performance.now();
  log.failed(performance.now(), new Error('connection reset'));
  log.taken(beforeOutage); // committed just before the outage, answered after the first 503
  log.failed(performance.now(), new Error('connection refused'));
  t.same(lines, [away], 'one line for the start: the message under way does not end the outage');

  const duringOutage = performance.now();
  log.taken(performance.now());
  log.failed(duringOutage, new Error('connection refused')); // began while away, failed after the end
  log.taken(performance.now());
  t.same(lines, [away, back], 'one line for the end: a late failure does not start another outage');
});

t.test('a second outage is told again', async (t) => {
  const { lines, log } = logged();
  log.failed(performance.now(), new Error('reset'));
  log.taken(performance.now());
  log.failed(performance.now(), new Error('reset'));
  log.taken(performance.now());
  t.same(lines, [away, back, away, back]);
});

t.test('messages taken with the database there tell nothing', async (t) => {
  const { lines, log } = logged();
  log.taken(performance.now());
  log.taken(performance.now());
  t.same(lines, []);
});
