/**
 * Functional acknowledgements, on a schedule of the main thread (docs/partner-setup.md, "EDI
 * routing and acknowledgements"). For each interchange the acceptance stored:
 *
 * - outbound: the partner's acknowledgement is awaited for its acknowledgement_due_hours;
 * - inbound, itself an acknowledgement (997, 999, CONTRL): matched to the interchanges it answers;
 * - inbound, a document: checked in one streamed pass, and the acknowledgement the partner asked
 *   for (997, 999 or CONTRL) is accepted as a new outbound message from the receiving
 *   organization to the partner, which the routes carry like any other (an AS2 sender, a file
 *   writer, whatever serves that partner).
 *
 * Deadlines that pass are marked overdue with an alert. The bytes are read here, outside any
 * transaction; the statements are flow/commands/edi-acks.ts.
 */
import { randomUUID } from 'node:crypto';
import { isDatabaseAway, type OutageLog } from '../../storage/outage-log.js';
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import { inTx, type Tx } from '../../storage/sql.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { keepBytes, openKept } from '../../storage/payloads/inline.js';
import {
  acknowledgementTypes,
  acknowledgementsOverdue,
  interchangePayloads,
  matchAcknowledgement,
  nextAcknowledgementControl,
  pendingInterchanges,
  recordInterchanges,
  type FoundInterchange,
  type InterchangeOutcome,
  type InterchangePayload,
  type PendingInterchange,
} from '../../flow/commands/edi-acks.js';
import { loadRoutes } from '../../flow/commands/dispatch.js';
import { noteReceivedControls } from '../../flow/commands/inbound-control-numbers.js';
import { targetsBetween } from '../../flow/tables/routing.js';
import { checkInterchange } from '../../edi/syntax-check.js';
import { buildAcknowledgement, type AcknowledgementKind } from '../../edi/acknowledgement.js';
import { readEnvelopeOf } from '../../edi/envelope-reader.js';
import { ediRecordOf } from '../../edi/record.js';
import type { AcknowledgementReading } from '../../edi/report.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { limits } from '../../limits/limits.js';

export interface AcknowledgementSweepOptions {
  orm: Orm;
  store: PayloadStore;
  dispatcher: Pick<Dispatcher, 'acceptAndDispatch'>;
  now: () => Date;
  logger: Logger;
  /** Where a failed run is told: once per database outage, every time otherwise. */
  outage?: Pick<OutageLog, 'failed'>;
}

/** Whether every document of the interchange is itself an acknowledgement (997, 999, CONTRL). */
const isAcknowledgement = (p: PendingInterchange): boolean =>
  p.document_types.length > 0 && p.document_types.every((t) => acknowledgementTypes.includes(t));

/** Source of the acknowledgements pier sends, as their messages name it. */
export const acknowledgementSource = { source_type: 'edi', source_name: 'acknowledgements' } as const;

export class AcknowledgementSweep {
  readonly #o: AcknowledgementSweepOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(options: AcknowledgementSweepOptions) {
    this.#o = options;
  }

  /** One run: deadlines first, then every pending interchange (tests call it directly). */
  async run(): Promise<void> {
    const at = this.#o.now();
    await inTx(this.#o.orm, (tx) => acknowledgementsOverdue(tx, at));
    for (;;) {
      const pending = await inTx(this.#o.orm, (tx) => pendingInterchanges(tx, limits.ackSweepBatch));
      const read = pending.filter((p) => this.#reads(p)).map((p) => p.message_id);
      const payloads =
        read.length > 0
          ? await inTx(this.#o.orm, (tx) => interchangePayloads(tx, read))
          : new Map<string, InterchangePayload>();
      // What was found is recorded for the whole batch at once, also when the batch stops half
      // way: an acknowledgement sent is never looked at again (and its source key keeps a
      // second look from sending it twice).
      const found: FoundInterchange[] = [];
      try {
        for (const p of pending) {
          try {
            found.push({
              message_id: p.message_id,
              outcome: await this.#work(p, payloads.get(p.message_id)),
            });
          } catch (error) {
            // Left pending: the next run tries again. A database away is the run's failure, told
            // once per outage; a store that was away is told here.
            if (isDatabaseAway(error)) throw error;
            this.#o.logger.warn(
              { message_id: p.message_id, error: error instanceof Error ? error.message : String(error) },
              'the interchange could not be acknowledged; trying again',
            );
            return;
          }
        }
      } finally {
        if (found.length > 0) await inTx(this.#o.orm, (tx) => this.#record(tx, found, pending));
      }
      if (pending.length < limits.ackSweepBatch) return;
    }
  }

  start(): void {
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = this.run()
        .catch((error: unknown) => {
          if (this.#o.outage) this.#o.outage.failed('acknowledgement sweep', error);
          else
            this.#o.logger.warn(
              { error: error instanceof Error ? error.message : String(error) },
              'acknowledgement sweep',
            );
        })
        .finally(() => (this.#running = undefined));
    }, limits.ackSweepEveryMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /**
   * Records what was found, and the control numbers of the inbound interchanges recorded (by
   * this process: one another recorded first is counted there), in the order they came.
   */
  async #record(tx: Tx, found: FoundInterchange[], pending: PendingInterchange[]): Promise<void> {
    const recorded = new Set(await recordInterchanges(tx, found));
    await noteReceivedControls(
      tx,
      this.#o.now(),
      pending
        .filter((p) => p.direction === 'inbound' && recorded.has(p.message_id))
        .map((p) => ({
          message_id: p.message_id,
          partner: p.from_party,
          interchange_control: p.interchange_control,
        })),
    );
  }

  /** Whether the interchange's document is read: an inbound one that is an acknowledgement or wants one. */
  #reads(p: PendingInterchange): boolean {
    return p.direction === 'inbound' && (isAcknowledgement(p) || this.#wanted(p) !== null);
  }

  /** `payload`: the document, when #reads says it is read and the message has one. */
  async #work(p: PendingInterchange, payload: InterchangePayload | undefined): Promise<InterchangeOutcome> {
    if (p.direction === 'outbound') {
      const hours = p.acknowledgement_due_hours ?? 0;
      const due =
        !isAcknowledgement(p) && hours > 0
          ? new Date(new Date(p.created_at).getTime() + hours * 3600_000)
          : null;
      return { kind: 'awaited', due };
    }
    if (!this.#reads(p)) return { kind: 'nothing' };
    const kind = this.#wanted(p);
    if (!payload) return { kind: 'unreadable', problem: 'the message has no payload to read' };
    const report = await checkInterchange(
      await openKept(
        this.#o.store,
        { messageId: p.message_id, stage: payload.stage as 'unpacked' },
        payload.content,
      ),
    );
    if ('problem' in report) return { kind: 'unreadable', problem: report.problem };
    const readings = report.groups.flatMap((g) =>
      g.sets.flatMap((s) => (s.acknowledges ? [s.acknowledges] : [])),
    );
    if (readings.length > 0) {
      await this.#match(p, readings);
      return { kind: 'nothing' };
    }
    if (!kind) return { kind: 'nothing' };
    const control = await inTx(this.#o.orm, (tx) => nextAcknowledgementControl(tx));
    const built = buildAcknowledgement(report, kind, control, this.#o.now());
    return { kind: 'acknowledged', ack_message_id: await this.#send(p, kind, built.text, built.file_name) };
  }

  /** The acknowledgement the partner asked for in this interchange's standard, if any. */
  #wanted(p: PendingInterchange): AcknowledgementKind | null {
    if (p.standard === 'x12')
      return p.x12_acknowledgement === '997' || p.x12_acknowledgement === '999'
        ? p.x12_acknowledgement
        : null;
    return p.edifact_acknowledgement === 'contrl' ? 'CONTRL' : null;
  }

  async #match(p: PendingInterchange, readings: AcknowledgementReading[]): Promise<void> {
    const matched = await inTx(this.#o.orm, (tx) =>
      matchAcknowledgement(
        tx,
        p.message_id,
        p.standard,
        { sender_id: p.sender_id, receiver_id: p.receiver_id },
        readings,
      ),
    );
    this.#o.logger.info(
      { message_id: p.message_id, acknowledges: matched },
      'functional acknowledgement received',
    );
  }

  /**
   * Accepts the acknowledgement as an outbound message from the organization that received the
   * interchange to the partner that sent it. Its source key is made from the interchange's
   * message, so a second process (or a second run after a crash) gets the same message back.
   */
  async #send(
    p: PendingInterchange,
    kind: AcknowledgementKind,
    text: string,
    fileName: string,
  ): Promise<string> {
    const id = randomUUID();
    const bytes = Buffer.from(text, 'latin1');
    const kept = await keepBytes(this.#o.store, { messageId: id, stage: 'unpacked' }, bytes);
    const reading = readEnvelopeOf(bytes);
    const routes = await inTx(this.#o.orm, loadRoutes);
    const targets = targetsBetween(p.to_party, p.from_party, routes, [kind]);
    const routeNote =
      targets.length === 1
        ? ''
        : targets.length === 0
          ? `; no route goes from ${p.to_party} to ${p.from_party}`
          : `; routes from ${p.to_party} to ${p.from_party} name several targets (${targets.join(', ')}): add a route for document type ${kind}`;
    const outcome = await this.#o.dispatcher.acceptAndDispatch({
      ...acknowledgementSource,
      ...(targets.length === 1 ? { target_hint: targets[0]! } : {}),
      text: `Functional acknowledgement ${kind} of interchange ${p.interchange_control} (message ${p.message_id})${routeNote}`,
      message: {
        id,
        from: p.to_party,
        to: p.from_party,
        file_name: fileName,
        source_key: `acknowledges:${p.message_id}`,
        payload: { stage: 'unpacked', ...kept },
        ...(reading.kind === 'envelope' ? { edi: ediRecordOf(reading.envelope) } : {}),
      },
    });
    if (outcome.duplicate) await this.#o.store.removeMessage(id);
    return outcome.message_id;
  }
}
