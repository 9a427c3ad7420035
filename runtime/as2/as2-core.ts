/**
 * The core's answers to the AS2 actors (see protocol/as2-protocol.ts), and the sweep that
 * fails deliveries whose asynchronous receipt is overdue (run on the dispatcher's schedule).
 */
import type { As2Request, As2Response } from '../../protocol/as2-protocol.js';
import { direct, inTx } from '../../flow/tx.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Orm } from '../../storage/db.js';
import { inlineBytes } from '../../storage/payloads/inline.js';
import { inboundContext, outboundContext } from './profiles.js';
import { findSent, receiptsOverdue, recordAs2, settleAwaited } from '../../flow/commands/as2-records.js';
import type { CemService } from '../cem/cem-service.js';

export class As2Core {
  constructor(
    private readonly orm: Orm,
    private readonly secrets: SecretBox,
    private readonly now: () => Date,
    /** PUBLIC_URL when it was set (see receipt-address.ts). */
    private readonly publicUrl: string | null = null,
    /** Stores certificate exchange messages the receivers read (runtime/cem/). */
    private readonly cem: CemService | null = null,
  ) {}

  answer(request: As2Request): Promise<As2Response> {
    const at = this.now();
    // A lookup is a single statement: no transaction around it (BEGIN and COMMIT would be
    // two more round trips to the database).
    if (request.type === 'as2_sent')
      return findSent(direct(this.orm), request.original_message_id).then((sent) => ({
        type: 'as2_sent',
        sent,
      }));
    if (request.type === 'cem_received') {
      if (!this.cem) throw new Error('certificate exchange messages are not handled in this process');
      // Its own transactions: it may send a response through the dispatcher.
      return this.cem.received(request).then((done) => ({ type: 'cem_done', ...done }));
    }
    // Narrowed here, where the closure below can keep it.
    const question = request;
    return inTx(this.orm, async (tx): Promise<As2Response> => {
      const request = question;
      switch (request.type) {
        case 'as2_inbound':
          return {
            type: 'as2_inbound',
            context: await inboundContext(tx, this.secrets, request.as2_to, request.as2_from),
          };
        case 'as2_outbound':
          return {
            type: 'as2_outbound',
            context: await outboundContext(
              tx,
              this.secrets,
              request.organization,
              request.partner,
              this.publicUrl,
            ),
          };
        case 'as2_record':
          await recordAs2(tx, at, request);
          return { type: 'as2_done', applied: true };
        case 'as2_ack': {
          const applied = await settleAwaited(
            tx,
            at,
            request.message_id,
            request.delivery_id,
            request.ok,
            request.text,
          );
          if (applied === 'early') return { type: 'as2_done', applied: false, early: true };
          // A receipt nothing waited for leaves protocols.as2 showing the one the delivery settled
          // with; its bytes are kept only when the message has no receipt yet (receipts-in.ts).
          if (request.delivery_id !== null) {
            await tx.all(
              `update as2_message set processed = ?, info = info || ?::jsonb where message_id = ?`,
              [request.ok, JSON.stringify(request.info), request.message_id],
            );
          }
          if (request.receipt_size !== null) {
            await tx.all(
              `insert into payload (message_id, stage, size_bytes, stored_at, content)
               values (?, 'receipt', ?, ?, ?::bytea) on conflict do nothing`,
              [
                request.message_id,
                request.receipt_size,
                at,
                request.receipt_content === undefined ? null : inlineBytes(request.receipt_content),
              ],
            );
          }
          return { type: 'as2_done', applied };
        }
        default: {
          const never: never = request;
          throw new Error(`unhandled ${String(never)}`);
        }
      }
    });
  }

  /** Fails deliveries whose receipt is overdue now; returns how many. */
  sweep(): Promise<number> {
    return inTx(this.orm, (tx) => receiptsOverdue(tx, this.now()));
  }
}
