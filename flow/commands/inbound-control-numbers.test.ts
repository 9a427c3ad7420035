// Covers the control numbers received from partners: the last interchange number of each partner is kept in its inbound counter (the largest seen, also when they come out of order), an interchange whose number is not after the last one gets a duplicate_received history line naming both numbers, a gap is not noted, a reference that is not a number is not counted, and partners' counters do not mix.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { migratedDatabase, sql } from '../../test/helpers/database.js';
import { inTx } from '../tx.js';
import { noteReceivedControls, type ReceivedInterchange } from './inbound-control-numbers.js';

const { orm, url } = await migratedDatabase(t);
await sql(url, `insert into organization (name) values ('acme')`);
await sql(url, `insert into partner (name) values ('globex'), ('initech')`);
const at = new Date('2026-11-25T10:00:00Z');

async function message(from: string): Promise<string> {
  const id = randomUUID();
  await sql(
    url,
    `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                          accepted_by, created_at, updated_at)
     values ($1, 'Delivered', 'settled', 'inbound', $2, 'acme', 'a.edi', 'file-poller', 'in', 1, now(), now())`,
    [id, from],
  );
  return id;
}

const received = async (partner: string, ...controls: string[]) => {
  const list: ReceivedInterchange[] = [];
  for (const interchange_control of controls)
    list.push({ message_id: await message(partner), partner, interchange_control });
  const noted = await inTx(orm, (tx) => noteReceivedControls(tx, at, list));
  return { list, noted };
};
const last = async (partner: string) =>
  (
    await sql<{ last_value: string }>(
      url,
      `select c.last_value from edi_control_number c join partner p on p.id = c.partner_id
        where p.name = $1 and c.direction = 'inbound' and c.level = 'interchange'`,
      [partner],
    )
  ).map((r) => Number(r.last_value));
const lines = async (id: string) =>
  sql<{ kind: string; text: string }>(url, 'select kind, text from message_history where message_id = $1', [
    id,
  ]);

t.test('numbers in sequence, and with gaps, are recorded without a note', async (t) => {
  const { noted } = await received('globex', '000000001', '000000002', '000000007');
  t.same(noted, []);
  t.same(await last('globex'), [7]);
});

t.test(
  'a number not after the last one is noted in its history; the counter keeps the largest',
  async (t) => {
    const { list, noted } = await received('globex', '000000007', '000000005', '000000008');
    t.same(noted, [list[0]!.message_id, list[1]!.message_id], 'the repeated 7 and the late 5');
    t.same(await lines(list[0]!.message_id), [
      {
        kind: 'duplicate_received',
        text: 'Interchange control number 000000007 from globex is not after the last one received (7): a duplicate or out of sequence',
      },
    ]);
    t.match((await lines(list[1]!.message_id))[0]!.text, /number 000000005 .* \(7\)/);
    t.same(await lines(list[2]!.message_id), []);
    t.same(await last('globex'), [8]);
  },
);

t.test('each partner has its own counter; a reference that is not a number is not counted', async (t) => {
  const { noted } = await received('initech', '3', 'REF-A');
  t.same(noted, [], "globex's 8 does not count for initech");
  t.same(await last('initech'), [3]);
  t.same(await last('globex'), [8]);
});
