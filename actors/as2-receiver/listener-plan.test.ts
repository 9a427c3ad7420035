// Covers how many threads a receiver listens on: one per 4 cores by default where Node shares a port (22.12 and later, Linux), the setting's number otherwise, one with the port to itself when the setting is 1, and one on older Node, saying why when more were asked for.
import t from 'tap';
import { listenerPlan, portSharingAvailable } from './listener-plan.js';
import { limits } from '../../limits/limits.js';

t.test('Node versions that share a port', async (t) => {
  for (const v of ['22.12.0', '22.20.1', '23.1.0', '24.0.0', '25.2.1'])
    t.ok(portSharingAvailable(v, 'linux'), `Node ${v} on Linux`);
  for (const v of ['20.20.2', '22.11.0', '23.0.0', '18.20.0'])
    t.notOk(portSharingAvailable(v, 'linux'), `Node ${v} on Linux`);
  t.notOk(portSharingAvailable('24.0.0', 'darwin'), 'not on macOS');
  t.notOk(portSharingAvailable('24.0.0', 'win32'), 'not on Windows');
});

t.test('where Node shares a port', async (t) => {
  t.same(listenerPlan(0, 16, true), { threads: 4, reusePort: true }, '0: one per 4 cores');
  t.same(listenerPlan(0, 6, true), { threads: 1, reusePort: true }, '0 on 6 cores: one');
  t.same(listenerPlan(0, 64, true), { threads: 16, reusePort: true }, '0 on 64 cores: 16');
  t.same(
    listenerPlan(0, 1024, true),
    { threads: limits.maxAutomaticListeners, reusePort: true },
    'at most 64 by itself',
  );
  t.same(listenerPlan(4, 16, true), { threads: 4, reusePort: true }, 'the number set');
  t.same(listenerPlan(100, 2, true), { threads: 100, reusePort: true }, 'more than the cores when set');
  t.same(listenerPlan(0, 1, true), { threads: 1, reusePort: true }, 'one core: one thread, the port shared');
  t.same(listenerPlan(1, 16, true), { threads: 1, reusePort: false }, '1: the port to itself');
});

t.test('where Node does not share a port', async (t) => {
  const plan = listenerPlan(0, 16, false);
  t.equal(plan.threads, 1);
  t.equal(plan.reusePort, false);
  t.match(
    plan.fewerBecause,
    /^listening on one thread instead of 4: sharing a port needs Node 22\.12 or later/,
  );
  t.same(listenerPlan(1, 16, false), { threads: 1, reusePort: false }, 'nothing to say when 1 was asked for');
  t.same(listenerPlan(0, 1, false), { threads: 1, reusePort: false }, 'nor on one core');
});
