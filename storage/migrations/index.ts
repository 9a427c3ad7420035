/**
 * Every migration in order (names.ts). A migration that has landed is never edited: add a new one.
 * Listed explicitly so the same list works from TypeScript sources and compiled code.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { migrationNames, type MigrationName } from './names.js';
import { Migration0001Foundation } from './Migration0001Foundation.js';
import { Migration0002Alerts } from './Migration0002Alerts.js';
import { Migration0003Certificates } from './Migration0003Certificates.js';
import { Migration0004Runtime } from './Migration0004Runtime.js';
import { Migration0009SecretCheck } from './Migration0009SecretCheck.js';
import { Migration0011As2Messages } from './Migration0011As2Messages.js';
import { Migration0013InteropOptions } from './Migration0013InteropOptions.js';
import { Migration0014InlinePayloads } from './Migration0014InlinePayloads.js';
import { Migration0020ServiceActions } from './Migration0020ServiceActions.js';
import { Migration0030MessageSearch } from './Migration0030MessageSearch.js';
import { Migration0060StorageCopies } from './Migration0060StorageCopies.js';
import { Migration0040HistoryAnnounce } from './Migration0040HistoryAnnounce.js';
import { Migration0041Notifications } from './Migration0041Notifications.js';
import { Migration0050Identity } from './Migration0050Identity.js';
import { Migration0070InboundPolicy } from './Migration0070InboundPolicy.js';
import { Migration0080PartnerLimits } from './Migration0080PartnerLimits.js';
import { Migration0090FlowConfigVersion } from './Migration0090FlowConfigVersion.js';
import { Migration0100HistoryIdAfterXid } from './Migration0100HistoryIdAfterXid.js';
import { Migration0180ReceiptAlertAt } from './Migration0180ReceiptAlertAt.js';
import { Migration0140CertificateRequests } from './Migration0140CertificateRequests.js';
import { Migration0141MessagePartySearch } from './Migration0141MessagePartySearch.js';
import { Migration0130CertificateExchange } from './Migration0130CertificateExchange.js';
import { Migration0190PartnerSpeaksFor } from './Migration0190PartnerSpeaksFor.js';
import { Migration0200KeyAgreement } from './Migration0200KeyAgreement.js';
import { Migration0210EdiControlNumbers } from './Migration0210EdiControlNumbers.js';
import { Migration0230PartnerStatus } from './Migration0230PartnerStatus.js';
import { Migration0240HistoryAnnounceBare } from './Migration0240HistoryAnnounceBare.js';
import { Migration0220PartnerEdiEnvelope } from './Migration0220PartnerEdiEnvelope.js';
import { Migration0120EdiEnvelopes } from './Migration0120EdiEnvelopes.js';

/** Each name's class: a name without one, or a class without a name, does not compile. */
const classes: Record<MigrationName, MigrationObject['class']> = {
  Migration0001Foundation,
  Migration0002Alerts,
  Migration0003Certificates,
  Migration0004Runtime,
  Migration0009SecretCheck,
  Migration0011As2Messages,
  Migration0013InteropOptions,
  Migration0014InlinePayloads,
  Migration0020ServiceActions,
  Migration0030MessageSearch,
  Migration0060StorageCopies,
  Migration0040HistoryAnnounce,
  Migration0041Notifications,
  Migration0050Identity,
  Migration0070InboundPolicy,
  Migration0080PartnerLimits,
  Migration0090FlowConfigVersion,
  Migration0100HistoryIdAfterXid,
  Migration0180ReceiptAlertAt,
  Migration0140CertificateRequests,
  Migration0141MessagePartySearch,
  Migration0130CertificateExchange,
  Migration0120EdiEnvelopes,
  Migration0190PartnerSpeaksFor,
  Migration0200KeyAgreement,
  Migration0210EdiControlNumbers,
  Migration0220PartnerEdiEnvelope,
  Migration0230PartnerStatus,
  Migration0240HistoryAnnounceBare,
};

export const migrationsList: MigrationObject[] = migrationNames.map((name) => ({
  name,
  class: classes[name],
}));
