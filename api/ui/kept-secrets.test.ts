// Covers the write-only values kept after a refused form: a ticket fills only the blank write-only fields of the same session, once, for ten minutes, and the kept set stays bounded.
import t from 'tap';
import { KeptSecrets, keptField } from './kept-secrets.js';

t.test('a ticket fills blank write-only fields of its own session, once', async (t) => {
  const kept = new KeptSecrets();
  const made = kept.keep('session-a', { url: 'https://hook.example/x', name: 'ops', password: '' }, [
    'url',
    'password',
  ]);
  t.same(made?.names, ['url'], 'only entered write-only values are kept');
  const ticket = made!.ticket;
  t.same(
    kept.restore('session-b', { [keptField]: ticket, url: '' }, ['url']),
    { url: '' },
    'another session gets nothing',
  );
  // The other session's try spent the ticket: a stolen one cannot be retried.
  t.same(kept.restore('session-a', { [keptField]: ticket, url: '' }, ['url']), { url: '' }, 'spent');
  const again = kept.keep('session-a', { url: 'https://hook.example/x' }, ['url'])!;
  t.same(
    kept.restore('session-a', { [keptField]: again.ticket, url: '', name: 'ops' }, ['url']),
    { url: 'https://hook.example/x', name: 'ops' },
    'the same session gets the URL back into the submission',
  );
  const typed = kept.keep('session-a', { url: 'https://old.example' }, ['url'])!;
  t.same(
    kept.restore('session-a', { [keptField]: typed.ticket, url: 'https://new.example' }, ['url']),
    { url: 'https://new.example' },
    'a value typed again wins',
  );
  t.equal(kept.size, 0, 'nothing is left behind');
});

t.test('tickets expire after ten minutes and the store is bounded', async (t) => {
  let now = 0;
  const kept = new KeptSecrets(() => now);
  const made = kept.keep('s', { url: 'https://a.example' }, ['url'])!;
  now = 10 * 60 * 1000 + 1;
  t.same(kept.restore('s', { [keptField]: made.ticket, url: '' }, ['url']), { url: '' }, 'expired');
  for (let i = 0; i < 600; i++) kept.keep('s', { url: `https://a.example/${i}` }, ['url']);
  t.ok(kept.size <= 500, `at most 500 kept (${kept.size})`);
  t.equal(kept.keep('s', { name: 'x' }, ['url']), undefined, 'nothing to keep, no ticket');
});
