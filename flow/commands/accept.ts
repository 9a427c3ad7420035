/**
 * Acceptance: a source hands over a message whose payload is already stored. One statement
 * (or, for batches that bring more, one transaction) stores the message, its payload stage, its
 * deliveries and its history; from then on it is never lost. A source that offers the same
 * thing again (the same file, after a crash before it could move the file away) gets the
 * message it already has.
 *
 * Locks: only rows it inserts (`message`, `payload`, `delivery`, `message_history`,
 * `as2_message`), and alerts; the duplicates and the queue count are plain reads. A source key
 * offered by two acceptances at once makes the second wait for the first's commit (its unique
 * index), nothing else.
 */
import type { Acceptance } from '../../protocol/core-protocol.js';
import { bindByName } from '../../storage/sql.js';
import { ContentBlob, contentSql } from '../../storage/content-blob.js';
import { ediSenderMismatch, messageRefused } from '../alerts/flow-alerts.js';
import {
  directoryOf,
  newDeliveryState,
  planAcceptance,
  type AcceptancePlan,
  type AcceptItem,
  type PartyKind,
  type PlannedMessage,
} from './accept-plan.js';
import type { RouteRow } from '../tables/routing.js';
import { FlowConfig, type KnownConfig } from './flow-config.js';
import { stallWaitSeconds } from '../tables/schedule.js';
import { direct, inTx, pgArray, workChannel, type Tx } from '../tx.js';
import type { Pool } from '../../storage/sql.js';
import type { MessageStatus } from '../tables/status.js';

export { directionOf, type AcceptItem } from './accept-plan.js';
import {
  as2RecordCtes,
  as2RecordHistory,
  as2RecordRows,
  duplicateKey,
  duplicateKeyArrays,
  inboundDuplicatesSql,
  noteDuplicates,
  type DuplicateRow,
  type MessageAs2Record,
} from './as2-records.js';

export interface AcceptOutcome {
  message_id: string;
  duplicate: boolean;
  /** A duplicate AS2 message: whether the earlier one's receipt is stored (to answer with). */
  receipt_stored?: boolean;
  /** That receipt's bytes (base64) when it is kept inline. */
  receipt?: string;
  status: MessageStatus;
  /** Deliveries still waiting for a claim at the targets of the message, after this batch. */
  queued: number;
  /** The deliveries stored as held by their targets (delivering) because the source handed the document to them. */
  handed?: HandedDelivery[];
}

export interface HandedDelivery {
  target: string;
  delivery_id: number;
}

/** What a source is answered for an acceptance (protocol/core-protocol.ts). */
export function acceptanceOf(o: AcceptOutcome): Acceptance {
  return {
    message_id: o.message_id,
    duplicate: o.duplicate,
    ...(o.receipt_stored === undefined ? {} : { receipt_stored: o.receipt_stored }),
    ...(o.receipt === undefined ? {} : { receipt: o.receipt }),
    status: o.status,
    queued: o.queued,
    ...(o.handed ? { handed: o.handed } : {}),
  };
}

/** The disposition modifier of a refusal (`Refused: processed/error: decryption-failed: …`). */
const refusedCheck = /^Refused: [^:]*?(?:error|failure): ([a-z-]+)/i;

/**
 * The operator's line for an accepted message (the log's record of the flow): none for a
 * duplicate. Written after the acceptance committed, by whoever ran it.
 */
export function acceptedLine(
  item: AcceptItem,
  outcome: AcceptOutcome | undefined,
): { msg: string; fields: Record<string, unknown> } | undefined {
  if (!outcome || outcome.duplicate) return undefined;
  const m = item.message;
  return {
    msg: m.refusal ? 'message refused' : 'message accepted',
    fields: {
      message_id: outcome.message_id,
      source: `${item.source_type}/${item.source_name}`,
      from: m.from,
      to: m.to,
      file_name: m.file_name,
      size_bytes: m.payload.size_bytes,
      status: outcome.status,
      ...(m.as2_record
        ? { as2_message_id: m.as2_record.as2_message_id, as2_from: m.as2_record.as2_from }
        : {}),
      // Which check refused it (`authentication-failed`, …); the refusal names the certificates.
      ...(m.refusal ? { check: refusedCheck.exec(m.refusal)?.[1] ?? 'refused', refusal: m.refusal } : {}),
    },
  };
}

/**
 * Who is told of the new deliveries (the acceptance's pg_notify): `others` tags the notice with
 * the node, whose process pokes its own target actors itself (the dispatcher, which accepts in
 * the main thread); `all` leaves it untagged, so this process's listener pokes them as well (a
 * source's own acceptance, in a thread that has no way to its targets).
 */
export type Announce = 'others' | 'all';

interface Lookups extends KnownConfig {
  duplicates: DuplicateRow[];
}

/**
 * What the acceptance reads before it writes, in one statement: the parties named, the routes,
 * the version they were read at (flow-config.ts), and the earlier messages of the inbound AS2
 * messages offered (their duplicates). One round trip instead of two: at concurrency 1 every
 * message pays each.
 */
async function lookups(
  tx: Tx,
  names: string[],
  keys: { as2_from: string; as2_message_id: string }[],
): Promise<Lookups> {
  const { sql: p, values } = bindByName({ names: pgArray(names), ...duplicateKeyArrays(keys) });
  const [row] = await tx.prepared<{
    version: string;
    parties: { name: string; kind: PartyKind }[];
    routes: RouteRow[];
    interchange_ids: { name: string; kind: PartyKind; qualifier: string; id: string }[];
    speakers: { name: string; speaks_for: string[] }[];
    duplicates: DuplicateRow[];
  }>(
    'accept-lookups',
    `select (select n::text from flow_config_version) as version,
            (select coalesce(json_agg(p), '[]') from (
               select name, 'organization' as kind from organization where name = any(${p.names}::text[])
               union all select name, 'partner' as kind from partner where name = any(${p.names}::text[])) p) as parties,
            (select coalesce(json_agg(r), '[]') from (
               select source_plugin, from_party, to_party, document_type, target_plugin from route) r) as routes,
            (select coalesce(json_agg(i), '[]') from (
               select name, 'organization' as kind, e->>'qualifier' as qualifier, e->>'id' as id
                 from organization, jsonb_array_elements(interchange_ids) e
               union all select name, 'partner', e->>'qualifier', e->>'id'
                 from partner, jsonb_array_elements(interchange_ids) e) i) as interchange_ids,
            (select coalesce(json_agg(s), '[]') from (
               select name, speaks_for from partner where speaks_for <> '[]'::jsonb) s) as speakers,
            (select coalesce(json_agg(d), '[]') from (${inboundDuplicatesSql(p)}) d) as duplicates`,
    values,
  );
  const kinds = new Map<string, Set<PartyKind>>();
  for (const party of row!.parties)
    kinds.set(party.name, (kinds.get(party.name) ?? new Set()).add(party.kind));
  return {
    version: row!.version,
    kinds,
    routes: row!.routes,
    directory: directoryOf(row!.interchange_ids, row!.speakers),
    duplicates: row!.duplicates,
  };
}

/** The organizations and partners these items name, each once. */
function partyNames(items: AcceptItem[]): string[] {
  // Loops here, not callbacks made per call, in what every acceptance runs: V8 compiles such a
  // callback again after each collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
  const names = new Set<string>();
  for (const { message } of items) names.add(message.from).add(message.to);
  return [...names];
}

/** What an acceptance reads before it writes, for these items. */
function lookupsFor(tx: Tx, items: AcceptItem[]): Promise<Lookups> {
  return lookups(tx, partyNames(items), inboundKeys(items));
}

function inboundKeys(items: AcceptItem[]): NonNullable<AcceptItem['message']['as2_record']>[] {
  const keys = [];
  for (const item of items) {
    const record = inboundRecord(item);
    if (record) keys.push(record);
  }
  return keys;
}

const inboundRecord = (i: AcceptItem) =>
  i.message.as2_record?.direction === 'inbound' ? i.message.as2_record : undefined;

function as2RecordsOf(items: AcceptItem[]): MessageAs2Record[] {
  const records = [];
  for (const { message: m } of items)
    if (m.as2_record) records.push({ message_id: m.id, record: m.as2_record });
  return records;
}

export interface Accepted {
  outcomes: AcceptOutcome[];
  /** Targets with new deliveries queued (announced). */
  targets: string[];
}

/**
 * Accepts and dispatches a batch in one round trip when it can: the statement that stores the
 * messages (insertAccepted), which commits by itself, planned from the parties and routes this
 * process read before (`config`) and storing nothing if they changed since or an AS2 message
 * offered is a duplicate. When the names are new here or something changed, the lookups are read
 * first (two round trips). A batch that brings more to write (a duplicate to note, a refusal to
 * raise an alert for, an AS2 history line) is accepted in a transaction instead (acceptBatch).
 * The lookups need no transaction around them: read committed, as PostgreSQL runs the flow, gave
 * each statement of that transaction its own snapshot anyway, so a route or a duplicate committed
 * between the reads and the insert was not seen before either.
 */
export async function acceptAtOnce(
  flow: Pool,
  at: Date,
  node: number,
  items: AcceptItem[],
  config: FlowConfig = new FlowConfig(),
  announce: Announce = 'others',
): Promise<Accepted> {
  const names = partyNames(items);
  const known = config.known(names);
  if (known) {
    const attempt = await storeIfUnchanged(flow, at, node, items, known, announce);
    if (attempt === 'needs a transaction')
      return inTx(flow, (tx) => acceptBatch(tx, at, node, items, undefined, announce));
    if (attempt !== 'changed') return attempt;
  }
  // What is read replaces what was remembered at another version (learn).
  const found = await lookups(direct(flow), names, inboundKeys(items));
  config.learn(found.version, names, found.kinds, found.routes, found.directory);
  if (found.duplicates.length === 0) {
    const attempt = await storeIfUnchanged(flow, at, node, items, found, announce);
    // Changed between the two statements: the transaction reads everything again.
    if (attempt === 'changed')
      return inTx(flow, (tx) => acceptBatch(tx, at, node, items, undefined, announce));
    if (attempt !== 'needs a transaction') return attempt;
  }
  return inTx(flow, (tx) => acceptBatch(tx, at, node, items, found, announce));
}

/**
 * Plans the batch from `read` and stores it in one statement, unless the plan brings more than
 * that statement writes, or the version read is no longer current or a duplicate arrived
 * (nothing is stored then).
 */
async function storeIfUnchanged(
  flow: Pool,
  at: Date,
  node: number,
  items: AcceptItem[],
  read: KnownConfig,
  announce: Announce,
): Promise<Accepted | 'changed' | 'needs a transaction'> {
  const plan = planAcceptance(items, read.kinds, read.routes, read.directory);
  const records = as2RecordsOf(items);
  if (raisesAlerts(plan) || asksHistory(records)) return 'needs a transaction';
  const guard = { version: read.version, keys: inboundKeys(items) };
  return (await storePlan(direct(flow), at, node, plan, records, guard, announce)) ?? 'changed';
}

/** A refusal of an AS2 message or a sender that does not match raises alerts, in a transaction. */
function raisesAlerts(plan: AcceptancePlan): boolean {
  for (const r of plan.messages)
    if ((r.refusal && r.source_type === 'as2-receiver') || r.sender_mismatch) return true;
  return false;
}

/** History lines of a record are written by a statement of their own, in a transaction. */
function asksHistory(records: MessageAs2Record[]): boolean {
  for (const r of records) if (r.record.history) return true;
  return false;
}

/**
 * Accepts and dispatches a batch in one transaction: the messages (with the status their
 * routes give them), their payload stages, their deliveries and their history lines, the
 * duplicates noted. The routes are read first, so a route saved before applies; `read`: what
 * acceptAtOnce read for these items already (read outside a transaction, as said there).
 */
export async function acceptBatch(
  tx: Tx,
  at: Date,
  node: number,
  items: AcceptItem[],
  read?: Lookups,
  announce: Announce = 'others',
): Promise<Accepted> {
  // An AS2 message whose Message-ID the partner sent before and pier processed is not
  // accepted again: the outcome names the earlier message (RFC 4130 §7.4 duplicates).
  const found = read ?? (await lookupsFor(tx, items));
  const duplicates = await noteDuplicates(tx, at, found.duplicates);
  const earlierOf = (i: AcceptItem) => {
    const r = inboundRecord(i);
    return r ? duplicates.get(duplicateKey(r)) : undefined;
  };
  const fresh = items.filter((i) => !earlierOf(i));
  const accepted =
    fresh.length > 0
      ? await storePlan(
          tx,
          at,
          node,
          planAcceptance(fresh, found.kinds, found.routes, found.directory),
          as2RecordsOf(fresh),
          null,
          announce,
        )
      : { outcomes: [], targets: [] };
  if (!accepted) throw new Error('An acceptance without a guard stored nothing');
  const outcomes = accepted.outcomes.values();
  return {
    outcomes: items.map((i): AcceptOutcome => {
      const earlier = earlierOf(i);
      if (!earlier) return outcomes.next().value!;
      return {
        message_id: earlier.message_id,
        duplicate: true,
        receipt_stored: earlier.has_receipt,
        ...(earlier.receipt !== null ? { receipt: earlier.receipt } : {}),
        status: earlier.status,
        queued: 0,
      };
    }),
    targets: accepted.targets,
  };
}

/**
 * Stores a planned batch: one statement, then what only some batches bring (alerts for
 * refusals, AS2 history lines, the earlier messages of sources that offered one again). Null
 * when `guard` stopped the statement (insertAccepted).
 */
async function storePlan(
  tx: Tx,
  at: Date,
  node: number,
  plan: AcceptancePlan,
  records: MessageAs2Record[],
  guard: Guard | null = null,
  announce: Announce = 'others',
): Promise<Accepted | null> {
  const inserted = await insertAccepted(tx, at, node, plan, records, guard, announce);
  if (!inserted) return null;
  const { fresh, queuedAt, handed } = inserted;
  for (const r of plan.messages) {
    if (!fresh.has(r.id)) continue;
    if (r.sender_mismatch) await ediSenderMismatch(tx, at, { ...r, mismatch: r.sender_mismatch });
    else if (r.refusal && r.source_type === 'as2-receiver')
      await messageRefused(tx, at, { ...r, refusal: r.refusal });
  }
  await as2RecordHistory(
    tx,
    at,
    records.filter((r) => fresh.has(r.message_id)),
  );
  const earlier = await offeredBefore(
    tx,
    plan.messages.filter((r) => !fresh.has(r.id) && r.source_key !== null),
  );
  const targets = [...queuedAt.keys()];
  const targetsOf = new Map<string, string[]>();
  for (const d of plan.deliveries) {
    targetsOf.set(d.message_id, [...(targetsOf.get(d.message_id) ?? []), d.target]);
  }
  const queued = (id: string) => Math.max(0, ...(targetsOf.get(id) ?? []).map((t) => queuedAt.get(t) ?? 0));
  const outcomes = plan.messages.map((r) => {
    if (fresh.has(r.id))
      return {
        message_id: r.id,
        duplicate: false,
        status: r.status,
        queued: queued(r.id),
        ...(handed.has(r.id) ? { handed: handed.get(r.id)! } : {}),
      };
    const before = earlier.get(sourceKeyOf(r));
    if (!before) throw new Error(`Message ${r.id} was neither stored nor found`);
    return { message_id: before.id, duplicate: true, status: before.status, queued: 0 };
  });
  return { outcomes, targets };
}

/** What a planned batch assumed: the flow's configuration version, no duplicate among these AS2 keys. */
interface Guard {
  version: string;
  keys: { as2_from: string; as2_message_id: string }[];
}

/**
 * Stores the plan in one statement: messages, payload stages, deliveries, history lines, and
 * the AS2 records of the messages stored (as2_message rows and their stages).
 * A message whose source key is stored already is skipped with all it would have brought.
 * The same statement tells every other pier process that the targets of the new deliveries
 * have work (pg_notify, sent at commit; tagged with this node, which pokes its own actors
 * itself, unless `announce` is `all`: readWorkNotice) and reads how far each target is behind: deliveries queued and not
 * yet announced a second time (so less than 10 s old), these included. A target that is not
 * running at all stops counting after that, and does not hold its source back for longer.
 * With a `guard`, the statement stores nothing (and returns null) unless flow_config_version is
 * still the version the plan was made from and no AS2 message of `keys` is a duplicate.
 * Returns the ids stored and the queue of each target with new deliveries.
 */
async function insertAccepted(
  tx: Tx,
  at: Date,
  node: number,
  plan: AcceptancePlan,
  records: MessageAs2Record[],
  guard: Guard | null,
  announce: Announce,
): Promise<{
  fresh: Set<string>;
  queuedAt: Map<string, number>;
  handed: Map<string, HandedDelivery[]>;
} | null> {
  const blob = new ContentBlob();
  const messages = plan.messages.map(({ payload_content, ...m }) => ({ ...m, ...blob.add(payload_content) }));
  const as2 = as2RecordRows(at, records, blob);
  const { sql: p, values } = bindByName({
    at,
    node,
    messages: JSON.stringify(messages),
    deliveries: JSON.stringify(plan.deliveries),
    lines: JSON.stringify(plan.lines),
    state: newDeliveryState,
    nextDispatch: new Date(at.getTime() + stallWaitSeconds(0) * 1000),
    rows: as2.rows,
    stages: as2.stages,
    blob: blob.bytes(),
    version: guard?.version ?? null,
    tag: announce === 'others' ? `${node}:` : '',
    ...duplicateKeyArrays(guard?.keys ?? []),
  });
  // Prepared: it parses and plans in milliseconds, runs in less, and inserts from JSON have
  // no plan that statistics could change. The queued states are written into the text so the
  // partial index on queued deliveries serves the count's generic plan too. One statement
  // instead of an insert and an announcement: each round trip to PostgreSQL costs the main
  // thread a system call each way, and at concurrency 1 every message pays them.
  const [result] = await tx.prepared<{
    stored: boolean;
    ids: string[];
    queued: { target: string; n: number }[];
    handed: { message_id: string; target: string; delivery_id: number }[];
  }>(
    'accept-insert',
    `with go as (
       select ${p.version}::bigint is null
              or ((select n from flow_config_version) = ${p.version}::bigint
                  and not exists (${inboundDuplicatesSql(p)})) as ok
     ), x as (
       select * from jsonb_to_recordset(${p.messages}::jsonb) as x(id uuid, status text, stage text, direction text,
              from_party text, to_party text, file_name text, source_type text, source_name text, source_key text,
              target_hint text, refusal text, size_bytes bigint, payload_stage text, content_at int, content_bytes int,
              edi jsonb)
        where (select ok from go)
     ), m as (
       insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                            source_key, target_hint, refusal, accepted_by, created_at, updated_at)
       select id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
              source_key, target_hint, refusal, ${p.node}, ${p.at}, ${p.at} from x
       on conflict (source_name, source_key) where source_key is not null do nothing
       returning id
     ), p as (
       insert into payload (message_id, stage, size_bytes, stored_at, content)
       select x.id, x.payload_stage, x.size_bytes, ${p.at}, ${contentSql(p.blob, 'x')} from x join m on m.id = x.id
     ), y as (
       select * from jsonb_to_recordset(${p.deliveries}::jsonb) as y(message_id uuid, target text, state text, text text)
     ), d as (
       insert into delivery (message_id, target, state, attempts, claims, claimed_by, claimed_at, dispatches,
                             next_dispatch_at, created_at, updated_at)
       select y.message_id, y.target, y.state, case when y.state = ${p.state} then 0 else 1 end,
              case when y.state = ${p.state} then 0 else 1 end,
              case when y.state = ${p.state} then null else ${p.node}::int end,
              case when y.state = ${p.state} then null else ${p.at}::timestamptz end,
              case when y.state = ${p.state} then 1 else 0 end,
              case when y.state = ${p.state} then ${p.nextDispatch}::timestamptz end, ${p.at}, ${p.at}
         from y join m on m.id = y.message_id
       returning id, message_id, target, state
     ), h as (
       insert into message_history (message_id, created_at, kind, old_status, new_status, text, delivery_id, target,
                                    old_state, new_state)
       select message_id, greatest(${p.at}::timestamptz, clock_timestamp()), kind, old_status, new_status, text, delivery_id, target, old_state, new_state from (
         select l.message_id, l.kind, l.old_status, l.new_status, l.text, null::bigint as delivery_id,
                null::text as target, null::text as old_state, null::text as new_state, l.ord
           from jsonb_to_recordset(${p.lines}::jsonb) as l(message_id uuid, kind text, old_status text, new_status text,
                text text, ord int) join m on m.id = l.message_id
         union all
         select d.message_id, 'delivery_changed', null, null, coalesce(y.text, 'Dispatched'), d.id, d.target, null,
                d.state, 2
           from d join y on y.message_id = d.message_id and y.target = d.target
       ) lines order by message_id, ord, delivery_id
     ), ${ediInterchangeCte('m')}, ${as2RecordCtes(p, 'm')}
     select (select ok from go) as stored, (select coalesce(json_agg(id), '[]') from m) as ids,
            (select coalesce(json_agg(json_build_object('target', q.target, 'n', q.n)), '[]') from (
               select t.target, pg_notify('${workChannel}', ${p.tag}::text || t.target) as announced,
                      t.fresh + (select count(*)::int from delivery e
                                  where e.state = '${newDeliveryState}' and e.dispatches = 1 and e.target = t.target) as n
                 from (select target, count(*)::int as fresh from d where d.state = ${p.state} group by target) t) q)
              as queued,
            (select coalesce(json_agg(json_build_object('message_id', d.message_id, 'target', d.target, 'delivery_id', d.id)),
                             '[]') from d where d.state <> ${p.state}) as handed`,
    values,
  );
  if (!result!.stored) return null;
  const handed = new Map<string, HandedDelivery[]>();
  for (const h of result!.handed)
    handed.set(h.message_id, [
      ...(handed.get(h.message_id) ?? []),
      { target: h.target, delivery_id: Number(h.delivery_id) },
    ]);
  return {
    fresh: new Set(result!.ids),
    queuedAt: new Map(result!.queued.map((q) => [q.target, q.n])),
    handed,
  };
}

/**
 * The EDI envelope of each stored message whose payload is an interchange (edi_interchange):
 * left pending for the acknowledgement sweep unless the message was refused.
 */
const ediInterchangeCte = (stored: string) => `edi as (
       insert into edi_interchange (message_id, standard, version, sender_qualifier, sender_id, receiver_qualifier,
                                    receiver_id, interchange_control, group_controls, document_types, pending)
       select x.id, x.edi->>'standard', x.edi->>'version', x.edi->'sender'->>'qualifier', x.edi->'sender'->>'id',
              x.edi->'receiver'->>'qualifier', x.edi->'receiver'->>'id', x.edi->>'interchange_control',
              array(select jsonb_array_elements_text(x.edi->'group_controls')),
              array(select jsonb_array_elements_text(x.edi->'document_types')), x.refusal is null
         from x join ${stored} on ${stored}.id = x.id where x.edi is not null
     )`;

const sourceKeyOf = (r: { source_name: string; source_key: string | null }) =>
  `${r.source_name}\u0000${r.source_key}`;

/** The messages stored earlier under the source keys offered again, by source key. */
async function offeredBefore(
  tx: Tx,
  offeredAgain: PlannedMessage[],
): Promise<Map<string, { id: string; status: MessageStatus }>> {
  const earlier = new Map<string, { id: string; status: MessageStatus }>();
  if (offeredAgain.length === 0) return earlier;
  const found = await tx.all<{ id: string; status: MessageStatus; source_name: string; source_key: string }>(
    `select m.id, m.status, m.source_name, m.source_key from message m
       join jsonb_to_recordset(?::jsonb) as x(source_name text, source_key text)
         on m.source_name = x.source_name and m.source_key = x.source_key
      where m.source_name = any(?::text[]) and m.source_key = any(?::text[])`,
    [
      JSON.stringify(offeredAgain.map((r) => ({ source_name: r.source_name, source_key: r.source_key }))),
      pgArray(offeredAgain.map((r) => r.source_name)),
      pgArray(offeredAgain.map((r) => r.source_key!)),
    ],
  );
  for (const f of found) earlier.set(sourceKeyOf(f), f);
  return earlier;
}
