// Covers the service lifecycle table (docs/api/lifecycles.md#service-instance-status) row by row: every allowed move, every refused one, the actions shown.
import t from 'tap';
import { actionsIn, serviceStatuses, transition, type ServiceStatus, type Trigger } from './states.js';

const triggers: Trigger[] = ['start', 'stop', 'restart', 'ready', 'fail', 'crash', 'stopped'];

const expected: Record<ServiceStatus, Partial<Record<Trigger, ServiceStatus>>> = {
  stopped: { start: 'starting' },
  starting: { ready: 'running', fail: 'error' },
  running: { stop: 'stopping', restart: 'stopping', crash: 'error' },
  stopping: { stopped: 'stopped', crash: 'stopped' },
  error: { start: 'starting', restart: 'starting' },
};

for (const from of serviceStatuses) {
  t.test(`from ${from}`, async (t) => {
    for (const trigger of triggers) {
      t.equal(
        transition(from, trigger),
        expected[from][trigger],
        `${from} --${trigger}--> ${expected[from][trigger] ?? 'refused'}`,
      );
    }
  });
}

t.test('actions possible in each status', async (t) => {
  t.same(actionsIn('stopped'), ['start']);
  t.same(actionsIn('starting'), [], 'no action on a starting instance');
  t.same(actionsIn('running'), ['stop', 'restart']);
  t.same(actionsIn('stopping'), [], 'no action on a stopping instance');
  t.same(actionsIn('error'), ['start', 'restart']);
});
