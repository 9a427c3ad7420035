/**
 * Certificate exchanges with AS2 partners (CEM): requests pier sends with our new
 * certificate, requests partners send with theirs, the answers both ways, the switch to an
 * accepted certificate on its respond-by date and the alert for a partner that did not
 * answer in time. Everything is kept in the database (cem_exchange, cem_exchange_certificate),
 * so any process of the cluster carries on where another stopped.
 */
import type { Logger } from 'pino';
import {
  buildRequestEntity,
  buildResponseEntity,
  referenceOf,
  sameCertificate,
  type CemUsage,
} from '../../actors/as2/cem/index.js';
import type { CemReceivedRequest } from '../../protocol/cem-protocol.js';
import { inTx, type Tx } from '../../storage/sql.js';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { alertLinks } from '../../flow/alerts/links.js';
import { storeReceivedCertificate, twinOf } from './certificates.js';
import { addBeside, addOurDecryption, removeAdded, switchTo } from './profiles.js';
import { chooseSender, sendCemMessage, type CemSendDeps } from './outbound-message.js';
import { CemRefusal } from './refusal.js';

export const cemPolicies = ['manual', 'accept', 'reject'] as const;
export type CemPolicy = (typeof cemPolicies)[number];

export interface CemServiceDeps extends CemSendDeps {
  now: () => Date;
  logger: Logger;
}

export interface SendRequestInput {
  partner_id: number;
  certificate_id: number;
  usages: CemUsage[];
  respond_by: Date;
  organization?: string | undefined;
  sender?: string | undefined;
}

export interface AnswerInput {
  decision: 'accept' | 'reject';
  reason?: string | undefined;
  sender?: string | undefined;
}

/** Arbitrary constant naming the advisory lock of the schedule, so one process runs each tick's work. */
const scheduleLockKey = 7_313_000_036;

type Part = { id: number; name: string };

export class CemService {
  constructor(private readonly deps: CemServiceDeps) {}

  // Receiving ----------------------------------------------------------------------------

  /** A CEM message the AS2 receiver read (before it accepts the message); returns what was done, in words. */
  async received(request: CemReceivedRequest): Promise<{ text: string; refused?: boolean }> {
    const at = this.deps.now();
    const parties = await inTx(this.deps.orm, (tx) => partiesOf(tx, request.organization, request.partner));
    if (request.cem.kind === 'response') return { text: await this.#responseReceived(request, parties, at) };
    const cem = request.cem;
    const stored = await inTx(this.deps.orm, async (tx) => {
      // Checked before anything is stored, in the transaction that stores: all or nothing.
      for (const t of cem.trustRequests) {
        const der = Buffer.from(t.certificate, 'base64');
        const twin = await twinOf(tx, der);
        if (!twin) continue;
        const reference = referenceOf(der);
        return {
          kind: 'refused' as const,
          twin:
            `Certificate exchange request ${cem.requestId} from ${request.partner} refused: its certificate with ` +
            `issuer ${reference.issuer} and serial number ${reference.serial} has another key than certificate ` +
            `${twin.id} (${twin.name}), which has the same issuer and serial number, so a signature could be ` +
            `taken for either; nothing was stored. A new certificate needs a serial number of its own.`,
        };
      }
      const respondBy = new Date(Math.min(...cem.trustRequests.map((t) => Date.parse(t.respondBy))));
      const [exchange] = await tx.all<{ id: number }>(
        `insert into cem_exchange (direction, partner_id, organization_id, request_id, respond_by,
            request_message_id, created_at, updated_at)
         values ('inbound', ?, ?, ?, ?, ?, ?, ?)
         on conflict (direction, partner_id, request_id) do nothing returning id`,
        [parties.partner.id, parties.organization.id, cem.requestId, respondBy, request.message_id, at, at],
      );
      if (!exchange) return null;
      const names: string[] = [];
      for (const [position, t] of cem.trustRequests.entries()) {
        const der = Buffer.from(t.certificate, 'base64');
        const certificate = await storeReceivedCertificate(
          tx,
          der,
          `${request.partner}: certificate exchange ${cem.requestId}`.slice(0, 200),
          at,
        );
        const added = await addBeside(tx, parties.partner.id, certificate.id, t.usages);
        const reference = referenceOf(der);
        await tx.all(
          `insert into cem_exchange_certificate (exchange_id, position, certificate_id, certificate_name, issuer,
              serial_decimal, usages, added_fields)
           values (?, ?, ?, ?, ?, ?, ?::text[], ?::text[])`,
          [
            exchange.id,
            position,
            certificate.id,
            certificate.name,
            reference.issuer,
            reference.serial,
            t.usages,
            added,
          ],
        );
        names.push(`certificate ${certificate.id} (${t.usages.join(', ')})`);
      }
      const [policy] = await tx.all<{ policy: CemPolicy }>(
        'select policy from cem_partner_policy where partner_id = ?',
        [parties.partner.id],
      );
      return {
        kind: 'stored' as const,
        id: exchange.id,
        names,
        policy: policy?.policy ?? 'manual',
        respondBy,
      };
    });
    if (!stored)
      return { text: `Certificate exchange request ${cem.requestId} was received before; nothing changed` };
    if (stored.kind === 'refused') {
      this.deps.logger.warn({ partner: request.partner, request: cem.requestId }, stored.twin);
      return { text: stored.twin, refused: true };
    }
    let text =
      `Certificate exchange request ${cem.requestId} from ${request.partner}: stored ${stored.names.join(', ')} ` +
      `beside the partner's current certificates (exchange ${stored.id}); switch on ${stored.respondBy.toISOString()}`;
    if (stored.policy === 'manual') return { text: `${text}; waiting for an operator's answer` };
    try {
      await this.answer(stored.id, { decision: stored.policy }, `policy:${stored.policy}`);
      text += `; ${stored.policy === 'accept' ? 'accepted' : 'rejected'} by the partner's policy`;
    } catch (error) {
      // The request is kept; an operator answers it once a sender exists.
      if (!(error instanceof CemRefusal)) throw error;
      text += `; the partner's policy could not answer: ${error.message}`;
      this.deps.logger.warn(
        { exchange: stored.id, problem: error.message },
        'certificate exchange not answered',
      );
    }
    return { text };
  }

  async #responseReceived(request: CemReceivedRequest, parties: Parties, at: Date): Promise<string> {
    const cem = request.cem;
    if (cem.kind !== 'response') throw new Error('not a response');
    return inTx(this.deps.orm, async (tx) => {
      const [exchange] = await tx.all<{ id: number }>(
        `select id from cem_exchange where direction = 'outbound' and partner_id = ? and request_id = ? for update`,
        [parties.partner.id, cem.requestId],
      );
      if (!exchange)
        return `Certificate exchange response to ${cem.requestId}, a request pier did not send to ${request.partner}; nothing changed`;
      const certificates = await tx.all<{ id: number; der: Buffer; certificate_name: string }>(
        `select ec.id, c.der, ec.certificate_name from cem_exchange_certificate ec
           join certificate c on c.id = ec.certificate_id where ec.exchange_id = ? order by ec.position`,
        [exchange.id],
      );
      const said: string[] = [];
      for (const answer of cem.trustResponses) {
        const matched = certificates.find((c) => sameCertificate(answer.reference, c.der));
        if (!matched) {
          said.push(
            `an answer for serial number ${answer.reference.serial}, which the request did not carry`,
          );
          continue;
        }
        await tx.all(`update cem_exchange_certificate set answer = ?, reason = ? where id = ?`, [
          answer.accepted ? 'accepted' : 'rejected',
          answer.accepted ? null : answer.reason,
          matched.id,
        ]);
        said.push(
          `${matched.certificate_name} ${answer.accepted ? 'accepted' : `rejected${answer.reason ? ` (${answer.reason})` : ''}`}`,
        );
      }
      await tx.all(
        `update cem_exchange set response_message_id = ?, answered_at = ?, answered_by = ?, updated_at = ? where id = ?`,
        [request.message_id, at, `partner:${request.partner}`, at, exchange.id],
      );
      return `Certificate exchange response from ${request.partner} to ${cem.requestId}: ${said.join('; ')}`;
    });
  }

  // Answering ----------------------------------------------------------------------------

  /** Accepts or rejects every certificate of an inbound request still pending, and sends the response. */
  async answer(exchangeId: number, input: AnswerInput, actor: string): Promise<void> {
    const at = this.deps.now();
    const prepared = await inTx(this.deps.orm, async (tx) => {
      const [exchange] = await tx.all<{
        direction: string;
        request_id: string;
        partner_id: number;
        partner: string;
        organization: string;
        our_as2id: string | null;
      }>(
        `select e.direction, e.request_id, e.partner_id, p.name as partner, o.name as organization, lp.as2id as our_as2id
           from cem_exchange e join partner p on p.id = e.partner_id join organization o on o.id = e.organization_id
           left join as2_local_profile lp on lp.organization_id = o.id
          where e.id = ? for update of e`,
        [exchangeId],
      );
      if (!exchange) throw new CemRefusal({ id: 'No such certificate exchange' }, 'Certificate exchange');
      if (exchange.direction !== 'inbound')
        throw new CemRefusal({
          _form: "Only a partner's request is answered here; pier's own requests are answered by the partner",
        });
      const pending = await tx.all<{
        id: number;
        certificate_id: number | null;
        der: Buffer | null;
        issuer: string;
        serial_decimal: string;
        added_fields: string[];
      }>(
        `select ec.id, ec.certificate_id, c.der, ec.issuer, ec.serial_decimal, ec.added_fields
           from cem_exchange_certificate ec left join certificate c on c.id = ec.certificate_id
          where ec.exchange_id = ? and ec.answer = 'pending' order by ec.position`,
        [exchangeId],
      );
      if (pending.length === 0) throw new CemRefusal({ decision: 'This request was answered already' });
      const sender = await chooseSender(tx, exchange.organization, exchange.partner, input.sender);
      const accepted = input.decision === 'accept';
      const reason = accepted ? null : input.reason?.trim() || 'Rejected by the receiving trading partner';
      for (const c of pending) {
        await tx.all('update cem_exchange_certificate set answer = ?, reason = ? where id = ?', [
          accepted ? 'accepted' : 'rejected',
          reason,
          c.id,
        ]);
        if (!accepted && c.certificate_id !== null)
          await removeAdded(tx, exchange.partner_id, c.certificate_id, c.added_fields);
      }
      await tx.all('update cem_exchange set answered_at = ?, answered_by = ?, updated_at = ? where id = ?', [
        at,
        actor,
        at,
        exchangeId,
      ]);
      const entity = buildResponseEntity(
        {
          requestId: exchange.request_id,
          sender: exchange.our_as2id ?? exchange.organization,
          originated: at,
          answers: pending.map((c) => ({
            accepted,
            reason,
            reference: { issuer: c.issuer, serial: c.serial_decimal },
          })),
        },
        exchange.organization,
      );
      return { exchange, sender, entity, accepted };
    });
    const messageId = await sendCemMessage(this.deps, {
      organization: prepared.exchange.organization,
      partner: prepared.exchange.partner,
      sender: prepared.sender,
      fileName: `cem-response-${safeName(prepared.exchange.request_id)}.xml`,
      entity: prepared.entity,
      text: `Certificate exchange response (${prepared.accepted ? 'accepted' : 'rejected'}) to ${prepared.exchange.request_id}, answered by ${actor}`,
    });
    await inTx(this.deps.orm, (tx) =>
      tx.all('update cem_exchange set response_message_id = ? where id = ?', [messageId, exchangeId]),
    );
  }

  // Sending ------------------------------------------------------------------------------

  /** Sends our new certificate to a partner; returns the new exchange's id. */
  async sendRequest(input: SendRequestInput, actor: string): Promise<number> {
    const at = this.deps.now();
    if (input.respond_by.getTime() <= at.getTime())
      throw new CemRefusal({ respond_by: 'Must be in the future: the partner needs time to answer' });
    const prepared = await inTx(this.deps.orm, async (tx) => {
      const [partner] = await tx.all<{ id: number; name: string; has_profile: boolean }>(
        `select p.id, p.name, exists (select 1 from as2_remote_profile rp where rp.partner_id = p.id) as has_profile
           from partner p where p.id = ?`,
        [input.partner_id],
      );
      if (!partner) throw new CemRefusal({ partner_id: 'No such partner' }, 'Partner');
      if (!partner.has_profile)
        throw new CemRefusal({
          partner_id: `Partner ${partner.name} has no AS2 profile to send the request to`,
        });
      const organizations = await tx.all<{ id: number; name: string; as2id: string }>(
        `select o.id, o.name, lp.as2id from organization o join as2_local_profile lp on lp.organization_id = o.id order by o.name`,
      );
      const organization =
        input.organization !== undefined
          ? organizations.find((o) => o.name === input.organization)
          : organizations.length === 1
            ? organizations[0]
            : undefined;
      if (!organization)
        throw new CemRefusal({
          organization:
            input.organization !== undefined
              ? `No organization with an AS2 profile is named ${input.organization}`
              : organizations.length === 0
                ? 'No organization has an AS2 profile'
                : 'Several organizations have AS2 profiles; name one',
        });
      const [certificate] = await tx.all<{
        id: number;
        der: Buffer;
        name: string;
        has_key: boolean;
        not_after: Date;
      }>(
        `select id, der, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name,
                private_key is not null as has_key, not_after from certificate where id = ?`,
        [input.certificate_id],
      );
      if (!certificate)
        throw new CemRefusal({ certificate_id: `No certificate has id ${input.certificate_id}` });
      if (!certificate.has_key)
        throw new CemRefusal({
          certificate_id: `Certificate ${certificate.id} has no private key: pier can only offer its own certificates`,
        });
      if (new Date(certificate.not_after).getTime() <= input.respond_by.getTime())
        throw new CemRefusal({
          certificate_id: `Certificate ${certificate.id} expires before the respond-by date`,
        });
      const sender = await chooseSender(tx, organization.name, partner.name, input.sender);
      const requestId = `${at.toISOString().replace(/[-:.]/g, '')}-${Math.random().toString(36).slice(2, 10)}@${organization.as2id.replace(/[^A-Za-z0-9.-]/g, '') || 'pier'}`;
      const [exchange] = await tx.all<{ id: number }>(
        `insert into cem_exchange (direction, partner_id, organization_id, request_id, respond_by, answered_by,
            created_at, updated_at)
         values ('outbound', ?, ?, ?, ?, ?, ?, ?) returning id`,
        [partner.id, organization.id, requestId, input.respond_by, null, at, at],
      );
      const reference = referenceOf(certificate.der);
      await tx.all(
        `insert into cem_exchange_certificate (exchange_id, position, certificate_id, certificate_name, issuer,
            serial_decimal, usages)
         values (?, 0, ?, ?, ?, ?, ?::text[])`,
        [exchange!.id, certificate.id, certificate.name, reference.issuer, reference.serial, input.usages],
      );
      // The partner may encrypt to the new certificate as soon as it accepts: we can decrypt both.
      if (input.usages.includes('encryption')) await addOurDecryption(tx, organization.id, certificate.id);
      const entity = buildRequestEntity(
        {
          requestId,
          sender: organization.as2id,
          originated: at,
          respondBy: input.respond_by,
          usages: input.usages,
          responseUrl: null,
          certificates: [certificate.der],
        },
        organization.as2id,
      );
      return {
        id: exchange!.id,
        requestId,
        entity,
        sender,
        organization: organization.name,
        partner: partner.name,
      };
    });
    const messageId = await sendCemMessage(this.deps, {
      organization: prepared.organization,
      partner: prepared.partner,
      sender: prepared.sender,
      fileName: `cem-request-${safeName(prepared.requestId)}.xml`,
      entity: prepared.entity,
      text: `Certificate exchange request ${prepared.requestId} sent by ${actor}`,
    });
    await inTx(this.deps.orm, (tx) =>
      tx.all('update cem_exchange set request_message_id = ? where id = ?', [messageId, prepared.id]),
    );
    return prepared.id;
  }

  // Schedule -----------------------------------------------------------------------------

  /**
   * What is due at `now`: accepted certificates of partners' requests whose respond-by date
   * came are switched to; our requests a partner left unanswered past it raise `cem_overdue`.
   * Each happens once in the cluster (an advisory lock, and the row remembers it).
   */
  async tick(now: Date = this.deps.now()): Promise<{ switched: number; overdue: number }> {
    return inTx(this.deps.orm, async (tx) => {
      await tx.all('select pg_advisory_xact_lock(?)', [scheduleLockKey]);
      let switched = 0;
      const due = await tx.all<{ id: number; partner_id: number; partner: string }>(
        `select e.id, e.partner_id, p.name as partner from cem_exchange e join partner p on p.id = e.partner_id
          where e.direction = 'inbound' and e.switched_at is null and e.respond_by <= ?
            and exists (select 1 from cem_exchange_certificate ec where ec.exchange_id = e.id and ec.answer = 'accepted')
          order by e.id`,
        [now],
      );
      for (const exchange of due) {
        const accepted = await tx.all<{
          certificate_id: number | null;
          usages: CemUsage[];
          certificate_name: string;
        }>(
          `select certificate_id, usages, certificate_name from cem_exchange_certificate
            where exchange_id = ? and answer = 'accepted' order by position`,
          [exchange.id],
        );
        const said: string[] = [];
        for (const c of accepted) {
          if (c.certificate_id === null) continue;
          const changes = await switchTo(tx, exchange.partner_id, c.certificate_id, c.usages);
          said.push(`${c.certificate_name} now ${changes.join(' and ')}`);
        }
        await tx.all('update cem_exchange set switched_at = ?, updated_at = ? where id = ?', [
          now,
          now,
          exchange.id,
        ]);
        this.deps.logger.info(
          { exchange: exchange.id, partner: exchange.partner, changes: said },
          'certificate exchange switched',
        );
        switched++;
      }
      switched += await this.#switchOurs(tx, now);
      const late = await tx.all<{
        id: number;
        request_id: string;
        partner: string;
        partner_id: number;
        respond_by: Date;
        waiting: string[];
      }>(
        `select e.id, e.request_id, p.name as partner, p.id as partner_id, e.respond_by,
                array_agg(ec.certificate_name order by ec.position) as waiting
           from cem_exchange e join partner p on p.id = e.partner_id
           join cem_exchange_certificate ec on ec.exchange_id = e.id and ec.answer = 'pending'
          where e.direction = 'outbound' and e.overdue_alerted_at is null and e.respond_by <= ?
          group by e.id, p.name, p.id order by e.id`,
        [now],
      );
      for (const exchange of late) {
        await raiseAlert(
          tx,
          {
            code: 'cem_overdue',
            subject_kind: 'partner',
            subject_id: exchange.partner_id,
            subject_name: exchange.partner,
            summary: `Partner ${exchange.partner} has not answered certificate exchange ${exchange.request_id}, due ${new Date(exchange.respond_by).toISOString()}`,
            details: {
              exchange_id: exchange.id,
              request_id: exchange.request_id,
              respond_by: new Date(exchange.respond_by).toISOString(),
              certificates: exchange.waiting,
            },
            dedupe_key: `cem_overdue:exchange:${exchange.id}`,
            link: alertLinks.certificateExchange(exchange.id),
          },
          now,
        );
        await tx.all('update cem_exchange set overdue_alerted_at = ?, updated_at = ? where id = ?', [
          now,
          now,
          exchange.id,
        ]);
      }
      return { switched, overdue: late.length };
    });
  }

  /**
   * Our requests the partner accepted whose respond-by date came: for signature, the
   * organization signs with the new certificate from now on. The organization signs for every
   * partner with one certificate, so it switches only when no request offering the same
   * certificate to another partner is still open or was rejected (then the operator decides,
   * docs/decisions/cem-rollover.md); for encryption the certificate is in the decryption list
   * since the request went out, and TLS is the receiver's setting.
   */
  async #switchOurs(tx: Tx, now: Date): Promise<number> {
    const due = await tx.all<{
      id: number;
      organization_id: number;
      certificate_id: number | null;
      usages: CemUsage[];
    }>(
      `select e.id, e.organization_id, ec.certificate_id, ec.usages
         from cem_exchange e join cem_exchange_certificate ec on ec.exchange_id = e.id and ec.answer = 'accepted'
        where e.direction = 'outbound' and e.switched_at is null and e.respond_by <= ?
          and not exists (select 1 from cem_exchange_certificate x where x.exchange_id = e.id and x.answer = 'pending')
        order by e.id`,
      [now],
    );
    const exchanges = new Set<number>();
    for (const c of due) {
      exchanges.add(c.id);
      if (c.certificate_id === null || !c.usages.includes('signature')) continue;
      const [blocked] = await tx.all<{ partner: string }>(
        `select p.name as partner from cem_exchange e join cem_exchange_certificate ec on ec.exchange_id = e.id
           join partner p on p.id = e.partner_id
          where e.direction = 'outbound' and e.organization_id = ? and ec.certificate_id = ? and e.id <> ?
            and (ec.answer = 'rejected' or (ec.answer = 'pending')) limit 1`,
        [c.organization_id, c.certificate_id, c.id],
      );
      if (blocked) {
        this.deps.logger.warn(
          { exchange: c.id, partner: blocked.partner },
          'our signing certificate not switched: another partner has not accepted it',
        );
        continue;
      }
      await tx.all(
        `update as2_profile_certificate set certificate_id = ?
          where local_organization_id = ? and field = 'signing_certificate_id'`,
        [c.certificate_id, c.organization_id],
      );
      await tx.all('update as2_local_profile set updated_at = ? where organization_id = ?', [
        now,
        c.organization_id,
      ]);
    }
    for (const id of exchanges)
      await tx.all('update cem_exchange set switched_at = ?, updated_at = ? where id = ?', [now, now, id]);
    return exchanges.size;
  }

  /** Sets how a partner's requests are answered. */
  async setPolicy(partnerId: number, policy: CemPolicy): Promise<void> {
    const at = this.deps.now();
    await inTx(this.deps.orm, async (tx) => {
      const [partner] = await tx.all('select 1 from partner where id = ?', [partnerId]);
      if (!partner) throw new CemRefusal({ partner_id: 'No such partner' }, 'Partner');
      await tx.all(
        `insert into cem_partner_policy (partner_id, policy, updated_at) values (?, ?, ?)
         on conflict (partner_id) do update set policy = excluded.policy, updated_at = excluded.updated_at`,
        [partnerId, policy, at],
      );
    });
  }
}

interface Parties {
  organization: Part;
  partner: Part;
}

async function partiesOf(tx: Tx, organization: string, partner: string): Promise<Parties> {
  const [o] = await tx.all<Part>('select id, name from organization where name = ?', [organization]);
  const [p] = await tx.all<Part>('select id, name from partner where name = ?', [partner]);
  if (!o || !p) throw new Error(`the parties ${organization} and ${partner} are not both known`);
  return { organization: o, partner: p };
}

function safeName(requestId: string): string {
  return requestId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
}
